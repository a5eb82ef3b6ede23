# opscan_add_kernel_library(): a kernel library target whose registration
# code opscan generates from its annotated sources, as a pre-build step.
#
#   opscan_add_kernel_library(<target>
#     SOURCES <file>...
#     TARGET executorch|executorch-aot|torch|torch-stable
#     REGISTRATION static|manual|named
#     [LIB_NAME <name>]            # default: <target>
#     [OPERATORS <ns::op.overload>...]  # register only these
#     [OPERATORS_FROM <file>]      # register only what a model (.pte) or a
#                                  # selected_operators.yaml needs (executorch;
#                                  # opscan --operators-from); also writes
#                                  # <lib>/selected_prim_ops.h
#     [COMPILE_OPTIONS <option>...]     # PRIVATE compile options
#     [DISPATCH_KEY <key>]         # torch, torch-stable and executorch-aot; default CPU
#     [TORCH_TARGET_VERSION 2.<n>] # torch-stable: the stable ABI to build for (also
#                                  # defined for the sources); default: the oldest
#                                  # that converts what the kernels pass
#     [SCHEMAS <file>...]          # known operator schemas (opscan --schemas, each)
#     [SCAN_PCH <header>]          # precompiled once for the scans (see below)
#     [NO_PROFILING]               # no per-operator profiling calls (opscan --no-profiling)
#     [EXCEPTION_BOUNDARY]         # a kernel's exception fails its call (executorch;
#                                  # opscan --exception-boundary; needs C++ exceptions)
#     [ATEN_MODE]                  # executorch: ExecuTorch's ATen mode (opscan
#                                  # --use-aten-lib; the library gets USE_ATEN_LIB=1)
#     [STATIC|SHARED])             # default: BUILD_SHARED_LIBS
#
# executorch: when the variable MAX_KERNEL_NUM is set (as for ExecuTorch's
# own build), the library is compiled with it too, so that its registration
# checks the registry's real capacity.
#
# executorch with ATEN_MODE: the kernels are built in ExecuTorch's ATen mode
# (tensors are at::Tensor) and register with the registry of ExecuTorch's
# ATen mode runtime. The library (its kernels, their scans and the generated
# code) gets USE_ATEN_LIB=1; link it with that runtime and libtorch.
#
# executorch-aot: ExecuTorch kernels registered with PyTorch's dispatcher
# (for export) are compiled in ExecuTorch's ATen mode: the library (its
# kernels, and so their scans) gets USE_ATEN_LIB=1, as ExecuTorch's
# gen_custom_ops_aot_lib does. Link it with libtorch and ExecuTorch's headers.
#
# Every generator option is given once, here. The target compiles the kernel
# sources and the generated ones; consumers link it and include
# <lib>/RegisterKernels.h. See docs/cmake.md. opscan itself
# judges the target, mode, name and dispatch key and lists the files and
# symbols of the generation (opscan generate --list-outputs) when the
# project configures: this file keeps no copy of them.
#
# Each source is scanned on its own, with the target's real compile flags, by
# a build step whose depfile lists every file the scan read; one more step
# merges the fragments and generates. opscan writes files only when their
# content changes and touches a stamp per step, so an unchanged build runs
# nothing and a changed header re-scans without recompiling unchanged code.
#
# Without SCAN_PCH, a step before the scans precompiles the leading
# #include lines that several sources share (opscan pch --shared) into the
# scans' cache (<target>.opscan/scan-cache), and each scan loads the one its
# own first lines match; the IR is the same as without. That step runs again
# only when those lines, or the headers they reach, change.
#
# Each kernel's file:line is in a generated file of its own
# (KernelSources.cpp): an edit that moves lines in a source recompiles that
# small table, not the registration.
#
# SCAN_PCH names a header the sources include (typically first): opscan
# precompiles it once, and every scan loads it instead of parsing it again,
# as if each source included it first. It speeds up the scans only; the
# compilation is unchanged.

include_guard(GLOBAL)
# Where this file's companion scripts are, wherever the function is called.
set_property(GLOBAL PROPERTY _OPSCAN_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# Ninja: depfile paths are taken relative to the build directory (they are
# absolute anyway).
cmake_policy(SET CMP0116 NEW)

# The path of the opscan tool, which must exist at configure time: the
# installed one (find_package), or the one built for this machine when
# opscan is part of the project (OpscanHostTool.cmake).
function(_opscan_executable caller out)
  get_target_property(imported opscan::opscan IMPORTED)
  if(imported)
    get_target_property(exe opscan::opscan LOCATION)
  endif()
  if(NOT exe OR NOT EXISTS "${exe}")
    message(FATAL_ERROR "${caller}: the opscan tool is not available at configure time: use the "
      "installed package (find_package(opscan CONFIG)), or add opscan to the project with "
      "add_subdirectory() or FetchContent")
  endif()
  set(${out} "${exe}" PARENT_SCOPE)
endfunction()

# What opscan generates for one library, as `opscan generate --list-outputs`
# gives it: the files by kind (<prefix>_HEADERS, _SOURCES, _DATA, relative to
# the output directory) and the symbols (<prefix>_FUNCTION, _LINK_ANCHOR).
# opscan judges the target, mode, name and dispatch key; what it refuses is
# a FATAL_ERROR with its messages after `what` (the options, as given).
function(_opscan_list_outputs caller what exe prefix)
  execute_process(COMMAND "${exe}" generate --list-outputs ${ARGN}
    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    string(REGEX REPLACE "(^|\n)opscan: error: " "\\1" errors "${errors}")
    string(STRIP "${errors}" errors)
    message(FATAL_ERROR "${caller}: opscan refuses ${what}:\n${errors}")
  endif()
  foreach(kind HEADERS SOURCES DATA FUNCTION LINK_ANCHOR)
    set(${kind})
  endforeach()
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^header (.+)$")
      list(APPEND HEADERS "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^source (.+)$")
      list(APPEND SOURCES "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^data (.+)$")
      list(APPEND DATA "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^registration-function (.+)$")
      set(FUNCTION "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^link-anchor (.+)$")
      set(LINK_ANCHOR "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  foreach(kind HEADERS SOURCES DATA FUNCTION LINK_ANCHOR)
    set(${prefix}_${kind} "${${kind}}" PARENT_SCOPE)
  endforeach()
endfunction()

# Records that `target` uses `value` (a library name or a registration
# symbol), which must be unique in the project; fails naming the target that
# uses it already, with `message` saying what to do.
function(_opscan_claim caller kind value target message)
  get_property(owner GLOBAL PROPERTY "_OPSCAN_${kind}_${value}")
  if(owner STREQUAL target)
    message(FATAL_ERROR "${caller}: kernel library target '${target}' is already defined")
  elseif(NOT "${owner}" STREQUAL "")
    string(REPLACE "<owner>" "${owner}" message "${message}")
    message(FATAL_ERROR "${caller}: ${message}")
  endif()
  set_property(GLOBAL PROPERTY "_OPSCAN_${kind}_${value}" "${target}")
endfunction()

# The compile arguments of `target`'s C++ sources, one per line, as its
# generation-time properties give them (with those of everything it links):
# include directories, definitions, options and the language standard.
function(_opscan_write_flags_file target file)
  set(inc "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(def "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(opt "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
  set(features "$<TARGET_PROPERTY:${target},COMPILE_FEATURES>")
  set(standard "$<TARGET_PROPERTY:${target},CXX_STANDARD>")
  set(extensions "$<TARGET_PROPERTY:${target},CXX_EXTENSIONS>")
  if(CMAKE_CXX_EXTENSIONS_DEFAULT OR NOT DEFINED CMAKE_CXX_EXTENSIONS_DEFAULT)
    set(default_extensions ON)
  else()
    set(default_extensions OFF)
  endif()
  set(dialect "$<IF:$<BOOL:$<IF:$<STREQUAL:${extensions},>,${default_extensions},${extensions}>>,gnu,c>")

  set(content "")
  # The standard as CMake picks it: the compiler's default, unless CXX_STANDARD
  # or a higher cxx_std_NN feature asks for another. libclang takes the last
  # -std, and the candidates come in increasing order.
  if(CMAKE_CXX_STANDARD_DEFAULT)
    string(APPEND content "-std=${dialect}++${CMAKE_CXX_STANDARD_DEFAULT}\n")
  endif()
  foreach(n 98 11 14 17 20 23 26)
    set(from_feature "$<IN_LIST:cxx_std_${n},${features}>")
    if(CMAKE_CXX_STANDARD_DEFAULT AND n LESS CMAKE_CXX_STANDARD_DEFAULT)
      set(from_feature 0)
    endif()
    string(APPEND content
      "$<$<OR:$<STREQUAL:${standard},${n}>,${from_feature}>:-std=${dialect}++${n}\n>")
  endforeach()
  # The project's global flags, for the configuration being built.
  separate_arguments(global_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
  set(configs ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE})
  list(REMOVE_DUPLICATES configs)
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" upper)
    separate_arguments(config_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS_${upper}}")
    if(config_flags)
      list(JOIN config_flags "\n" config_flags)
      list(APPEND global_flags "$<$<CONFIG:${config}>:${config_flags}>")
    endif()
  endforeach()
  foreach(flag IN LISTS global_flags)
    string(APPEND content "${flag}\n")
  endforeach()
  string(APPEND content
    "$<$<BOOL:${inc}>:-I$<JOIN:${inc},\n-I>\n>"
    "$<$<BOOL:${def}>:-D$<JOIN:${def},\n-D>\n>"
    "$<$<BOOL:${opt}>:$<JOIN:${opt},\n>\n>")
  file(GENERATE OUTPUT "${file}" CONTENT "${content}")
endfunction()

function(opscan_add_kernel_library target)
  set(caller "opscan_add_kernel_library(${target})")
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC;SHARED;NO_PROFILING;EXCEPTION_BOUNDARY;ATEN_MODE"
    "TARGET;REGISTRATION;LIB_NAME;DISPATCH_KEY;SCAN_PCH;OPERATORS_FROM;TORCH_TARGET_VERSION" "SOURCES;OPERATORS;COMPILE_OPTIONS;SCHEMAS")
  if(arg_UNPARSED_ARGUMENTS)
    list(JOIN arg_UNPARSED_ARGUMENTS ", " unknown)
    message(FATAL_ERROR "${caller}: unknown arguments: ${unknown}")
  endif()
  # A keyword given no value is almost always an unset variable: never fall
  # back to a default for it. cmake_parse_arguments drops a keyword followed
  # by "" (before CMake 3.31), so look at the arguments themselves too.
  set(empty ${arg_KEYWORDS_MISSING_VALUES})
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 1 ${last})
    math(EXPR next "${i} + 1")
    if(ARGV${i} MATCHES "^(TARGET|REGISTRATION|LIB_NAME|DISPATCH_KEY|SCHEMAS|SCAN_PCH|SOURCES|OPERATORS|OPERATORS_FROM|COMPILE_OPTIONS|TORCH_TARGET_VERSION)$"
       AND (next GREATER last OR "${ARGV${next}}" STREQUAL ""))
      list(APPEND empty ${ARGV${i}})
    endif()
  endforeach()
  foreach(keyword IN LISTS empty)
    message(FATAL_ERROR "${caller}: ${keyword} is given but empty (an unset variable?); "
      "give it a value or leave it out")
  endforeach()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "${caller}: SOURCES is required: the annotated kernel sources")
  endif()
  if(NOT DEFINED arg_TARGET)
    message(FATAL_ERROR "${caller}: TARGET is required: the runtime to generate for "
      "(executorch, executorch-aot, torch or torch-stable)")
  endif()
  if(NOT DEFINED arg_REGISTRATION)
    message(FATAL_ERROR "${caller}: REGISTRATION is required: static, manual or named")
  endif()
  if(arg_STATIC AND arg_SHARED)
    message(FATAL_ERROR "${caller}: give STATIC or SHARED, not both")
  endif()
  if(arg_ATEN_MODE AND NOT arg_TARGET STREQUAL "executorch")
    message(FATAL_ERROR "${caller}: ATEN_MODE is for TARGET executorch (ExecuTorch's ATen mode); "
      "TARGET ${arg_TARGET} has none (executorch-aot is always built in ATen mode)")
  endif()

  if(DEFINED arg_LIB_NAME)
    set(lib "${arg_LIB_NAME}")
    set(source "LIB_NAME '${lib}'")
    set(request "TARGET ${arg_TARGET}, REGISTRATION ${arg_REGISTRATION}, LIB_NAME '${lib}'")
  else()
    set(lib "${target}")
    set(source "the library name '${lib}' (the target name)")
    set(request "TARGET ${arg_TARGET}, REGISTRATION ${arg_REGISTRATION} and the library name '${lib}' (the target name: give LIB_NAME <name> to choose another)")
  endif()
  # opscan judges the target, mode, name and dispatch key, and says what the
  # generation will write and define.
  _opscan_executable("${caller}" exe)
  set(generate_options --target ${arg_TARGET} --registration ${arg_REGISTRATION} --lib ${lib})
  if(DEFINED arg_DISPATCH_KEY)
    list(APPEND generate_options --dispatch-key ${arg_DISPATCH_KEY})
    string(APPEND request ", DISPATCH_KEY ${arg_DISPATCH_KEY}")
  endif()
  if(DEFINED arg_TORCH_TARGET_VERSION)
    list(APPEND generate_options --torch-target-version ${arg_TORCH_TARGET_VERSION})
    string(APPEND request ", TORCH_TARGET_VERSION ${arg_TORCH_TARGET_VERSION}")
  endif()
  if(arg_EXCEPTION_BOUNDARY)
    list(APPEND generate_options --exception-boundary)
    string(APPEND request ", EXCEPTION_BOUNDARY")
  endif()
  if(arg_ATEN_MODE)
    list(APPEND generate_options --use-aten-lib)
    string(APPEND request ", ATEN_MODE")
  endif()
  # The selection is read when generating, not here: the model may be made
  # by the build. Listing the outputs only needs to know it is given.
  set(generate_depends)
  if(DEFINED arg_OPERATORS_FROM)
    get_filename_component(operators_from "${arg_OPERATORS_FROM}" ABSOLUTE)
    list(APPEND generate_options --operators-from "${operators_from}")
    list(APPEND generate_depends "${operators_from}")
    string(APPEND request ", OPERATORS_FROM ${arg_OPERATORS_FROM}")
  endif()
  _opscan_list_outputs("${caller}" "${request}" "${exe}" listed ${generate_options})
  _opscan_claim("${caller}" LIBRARY "${lib}" ${target}
    "${source} is already the name of kernel library target '<owner>'; each kernel library needs its own name")
  if(listed_FUNCTION)
    _opscan_claim("${caller}" SYMBOL "${listed_FUNCTION}" ${target}
      "REGISTRATION ${arg_REGISTRATION} defines ${listed_FUNCTION}(), which kernel library target '<owner>' defines too; use REGISTRATION named, which gives each library its own register_<name>_kernels()")
  endif()

  set(gen "${CMAKE_CURRENT_BINARY_DIR}/${target}.opscan")
  foreach(kind HEADERS SOURCES DATA)
    set(${kind})
    foreach(file IN LISTS listed_${kind})
      list(APPEND ${kind} "${gen}/include/${file}")
    endforeach()
  endforeach()
  set(generated ${HEADERS} ${SOURCES} ${DATA})
  set(library_ir "${DATA}")
  list(FILTER library_ir INCLUDE REGEX "/ir\\.json$")

  set(type)
  if(arg_STATIC)
    set(type STATIC)
  elseif(arg_SHARED)
    set(type SHARED)
  endif()
  add_library(${target} ${type})
  target_compile_options(${target} PRIVATE ${arg_COMPILE_OPTIONS})
  # The annotations are for the kernel sources only, and only while building.
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:opscan::annotations>)

  set(flags_file "${gen}/flags-$<CONFIG>.txt")
  _opscan_write_flags_file(${target} "${flags_file}")
  set(opscan_exe opscan::opscan $<TARGET_FILE:opscan::opscan>)
  set(scan_options --flags-file "${flags_file}")
  foreach(schemas IN LISTS arg_SCHEMAS)
    get_filename_component(schemas "${schemas}" ABSOLUTE)
    list(APPEND scan_options --schemas "${schemas}")
  endforeach()

  set(scan_depends "${flags_file}" ${opscan_exe})
  set(absolute_sources)
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE)
    list(APPEND absolute_sources "${source}")
  endforeach()
  list(LENGTH absolute_sources source_count)
  set(scan_clang_args)
  if(DEFINED arg_SCAN_PCH)
    get_filename_component(pch_header "${arg_SCAN_PCH}" ABSOLUTE)
    get_filename_component(pch_name "${pch_header}" NAME)
    set(pch "${gen}/scan.pch")
    add_custom_command(
      OUTPUT "${pch}.stamp"
      BYPRODUCTS "${pch}"
      COMMAND opscan::opscan pch "${pch_header}" -o "${pch}" --stamp "${pch}.stamp"
              --depfile "${pch}.d" --flags-file "${flags_file}"
      DEPENDS "${pch_header}" "${flags_file}" ${opscan_exe}
      DEPFILE "${pch}.d"
      COMMENT "opscan: precompiling ${pch_name} for the scans of kernel library '${lib}'"
      VERBATIM)
    list(APPEND scan_depends "${pch}.stamp")
    set(scan_clang_args -- -include-pch "${pch}")
  elseif(source_count GREATER 1)
    # The automatic precompiled headers: a step before the scans makes those
    # of the #include lines the sources share into the scans' cache, where
    # each scan finds its own. The scans only come after it (a target-level
    # order): they give the same IR with or without one, so a change to the
    # headers made re-runs only the scans whose own inputs changed.
    set(scan_cache "${gen}/scan-cache")
    set(shared "${gen}/shared-pch")
    # Of the sources, that step reads the leading #include lines only: a
    # cheap step lists them, rewriting the list only when they change, and
    # the step depends on the list (and, through its depfile, on the
    # headers), not on the sources. An edit below a source's #include lines
    # does not run it again.
    get_property(module_dir GLOBAL PROPERTY _OPSCAN_MODULE_DIR)
    set(inputs_script "${module_dir}/OpscanSharedPchInputs.cmake")
    list(JOIN absolute_sources "\n" source_lines)
    file(GENERATE OUTPUT "${shared}-sources.txt" CONTENT "${source_lines}\n")
    # (Make, which has no restat, compares the list's time after its stamp's.)
    add_custom_command(
      OUTPUT "${shared}-includes.stamp"
      BYPRODUCTS "${shared}-includes.txt"
      COMMAND "${CMAKE_COMMAND}" -DMODE=includes "-DSOURCES=${shared}-sources.txt"
              "-DOUTPUT=${shared}-includes.txt" -P "${inputs_script}"
      COMMAND "${CMAKE_COMMAND}" -E touch "${shared}-includes.stamp"
      DEPENDS ${absolute_sources} "${shared}-sources.txt" "${inputs_script}"
      COMMENT "opscan: listing the #include lines the sources of kernel library '${lib}' start with"
      VERBATIM)
    add_custom_command(
      OUTPUT "${shared}.stamp"
      BYPRODUCTS "${shared}.txt"
      COMMAND opscan::opscan pch --shared ${absolute_sources} --cache "${scan_cache}"
              -o "${shared}.txt" --stamp "${shared}.stamp" --depfile "${shared}.d"
              --flags-file "${flags_file}"
      COMMAND "${CMAKE_COMMAND}" -DMODE=depfile "-DSOURCES=${shared}-sources.txt"
              "-DDEPFILE=${shared}.d" -P "${inputs_script}"
      DEPENDS "${shared}-includes.txt" "${flags_file}" ${opscan_exe}
      DEPFILE "${shared}.d"
      COMMENT "opscan: precompiling the #include lines the sources of kernel library '${lib}' share"
      VERBATIM)
    add_custom_target(${target}_opscan_shared_pch
                      DEPENDS "${shared}-includes.stamp" "${shared}.stamp")
    add_dependencies(${target} ${target}_opscan_shared_pch)
    list(APPEND scan_options --cache "${scan_cache}")
  endif()

  # One scan per source, so the build tool runs them in parallel.
  set(fragments)
  set(stamps)
  set(index 0)
  foreach(source IN LISTS absolute_sources)
    get_filename_component(name "${source}" NAME)
    math(EXPR index "${index} + 1")
    set(fragment "${gen}/scan/${index}-${name}")
    add_custom_command(
      OUTPUT "${fragment}.stamp"
      BYPRODUCTS "${fragment}.ir.json"
      COMMAND opscan::opscan scan "${source}" -o "${fragment}.ir.json"
              --stamp "${fragment}.stamp" --depfile "${fragment}.d" ${scan_options}
              ${scan_clang_args}
      DEPENDS "${source}" ${scan_depends}
      DEPFILE "${fragment}.d"
      COMMENT "opscan: scanning ${name} (kernel library '${lib}')"
      VERBATIM)
    list(APPEND fragments "${fragment}.ir.json")
    list(APPEND stamps "${fragment}.stamp")
  endforeach()

  if(arg_OPERATORS)
    list(JOIN arg_OPERATORS "," operators)
    list(APPEND generate_options --operators "${operators}")
  endif()
  if(arg_NO_PROFILING)
    list(APPEND generate_options --no-profiling)
  endif()
  # The kernels are built for the stable ABI version their registration is
  # (opscan refused any other spelling when it listed the outputs).
  if(arg_TORCH_TARGET_VERSION MATCHES "^2\\.([0-9]+)$")
    math(EXPR version "(2 << 56) | (${CMAKE_MATCH_1} << 48)" OUTPUT_FORMAT HEXADECIMAL)
    target_compile_definitions(${target} PRIVATE TORCH_TARGET_VERSION=${version})
  endif()
  if(arg_TARGET STREQUAL "executorch" AND MAX_KERNEL_NUM)
    target_compile_definitions(${target} PRIVATE MAX_KERNEL_NUM=${MAX_KERNEL_NUM})
  endif()
  if(arg_TARGET STREQUAL "executorch-aot" OR arg_ATEN_MODE)
    target_compile_definitions(${target} PRIVATE USE_ATEN_LIB=1)
  endif()
  add_custom_command(
    OUTPUT "${gen}/generate.stamp"
    BYPRODUCTS ${generated}
    COMMAND opscan::opscan generate ${fragments} ${generate_options} -o "${gen}/include"
            --stamp "${gen}/generate.stamp"
    DEPENDS ${stamps} ${opscan_exe} ${generate_depends}
    COMMENT "opscan: generating registration code for kernel library '${lib}'"
    VERBATIM)

  # Every generated file is a source of the target (the data files are not
  # compiled), so IDEs list them and `make clean` removes them.
  target_sources(${target} PRIVATE ${arg_SOURCES} ${SOURCES} ${DATA} "${gen}/generate.stamp")
  # Consumers include <lib>/RegisterKernels.h: the file set makes the
  # generated include directory a usage requirement, in the build tree and
  # wherever install(TARGETS ... FILE_SET HEADERS) puts it.
  target_sources(${target} PUBLIC FILE_SET HEADERS BASE_DIRS "${gen}/include" FILES ${HEADERS})
  if(TARGET opscan_host_tool)
    add_dependencies(${target} opscan_host_tool)
  endif()

  if(listed_LINK_ANCHOR)
    # Nothing calls a statically registering library, so a linker taking it
    # from an archive would drop it; asking for the symbol the generated
    # registration defines keeps it, and the kernels it references.
    target_link_options(${target} INTERFACE "LINKER:--undefined=${listed_LINK_ANCHOR}")
  endif()

  set_target_properties(${target} PROPERTIES
    OPSCAN_LIB_NAME "${lib}"
    OPSCAN_RUNTIME "${arg_TARGET}"
    OPSCAN_LIBRARY_IR "${library_ir}"
    OPSCAN_GENERATE_STAMP "${gen}/generate.stamp")
  set_property(GLOBAL APPEND PROPERTY _OPSCAN_KERNEL_LIBRARIES ${target})

  # Once the whole project is read, check the programs that link several.
  get_property(deferred GLOBAL PROPERTY _OPSCAN_CHECK_DEFERRED)
  if(NOT deferred)
    set_property(GLOBAL PROPERTY _OPSCAN_CHECK_DEFERRED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _opscan_check_programs)
  endif()
endfunction()

# Every target defined in `dir` and below.
function(_opscan_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _opscan_targets_below("${subdir}" below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# The kernel libraries `target` links, directly or through other targets.
function(_opscan_linked_kernel_libraries target out)
  set(found)
  set(seen ${target})
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue current)
    # The program's own links; what it links passes on its interface ones.
    set(links)
    if(current STREQUAL target)
      get_target_property(links ${current} LINK_LIBRARIES)
    endif()
    get_target_property(interface ${current} INTERFACE_LINK_LIBRARIES)
    foreach(link IN LISTS links interface)
      # $<LINK_ONLY:x> is how static libraries pass on private links.
      if(link MATCHES "^\\$<LINK_ONLY:([^$<>]+)>$")
        set(link "${CMAKE_MATCH_1}")
      endif()
      if(NOT link OR link MATCHES "NOTFOUND$" OR link IN_LIST seen OR NOT TARGET "${link}")
        continue()
      endif()
      list(APPEND seen "${link}")
      list(APPEND queue "${link}")
      get_target_property(ir "${link}" OPSCAN_LIBRARY_IR)
      if(ir)
        list(APPEND found "${link}")
      endif()
    endforeach()
  endwhile()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# For each program linking two or more kernel libraries, a build step that
# runs `opscan check` on their IRs, before the program is built: operators
# registered twice are reported then, not at start-up.
function(_opscan_check_programs)
  _opscan_targets_below("${CMAKE_SOURCE_DIR}" targets)
  foreach(program IN LISTS targets)
    get_target_property(type ${program} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      continue()
    endif()
    _opscan_linked_kernel_libraries(${program} libraries)
    list(LENGTH libraries count)
    if(count LESS 2)
      continue()
    endif()
    set(irs)
    set(names)
    foreach(library IN LISTS libraries)
      get_target_property(ir ${library} OPSCAN_LIBRARY_IR)
      get_target_property(stamp ${library} OPSCAN_GENERATE_STAMP)
      get_target_property(name ${library} OPSCAN_LIB_NAME)
      list(APPEND irs "${ir}")
      list(APPEND names "${name}")
    endforeach()
    list(JOIN names ", " names)
    set(stamp "${CMAKE_BINARY_DIR}/opscan-check/${program}.stamp")
    add_custom_command(
      OUTPUT "${stamp}"
      COMMAND opscan::opscan check ${irs} --stamp "${stamp}"
      DEPENDS ${irs} opscan::opscan $<TARGET_FILE:opscan::opscan>
      COMMENT "opscan: checking the kernel libraries linked into ${program} (${names})"
      VERBATIM)
    add_custom_target(${program}_opscan_check DEPENDS "${stamp}")
    add_dependencies(${program}_opscan_check ${libraries})
    add_dependencies(${program} ${program}_opscan_check)
  endforeach()
endfunction()

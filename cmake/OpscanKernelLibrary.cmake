# opscan_add_kernel_library(): a kernel library target whose registration
# code opscan generates from its annotated sources, as a pre-build step.
#
#   opscan_add_kernel_library(<target>
#     SOURCES <file>...
#     TARGET executorch|torch
#     REGISTRATION static|manual|named
#     [LIB_NAME <name>]            # default: <target>
#     [OPERATORS <ns::op.overload>...]  # register only these
#     [COMPILE_OPTIONS <option>...]     # PRIVATE compile options
#     [DISPATCH_KEY <key>]         # torch only; default CPU
#     [SCHEMAS <file>]             # known operator schemas (opscan --schemas)
#     [SCAN_PCH <header>]          # precompiled once for the scans (see below)
#     [STATIC|SHARED])             # default: BUILD_SHARED_LIBS
#
# Every generator option is given once, here. The target compiles the kernel
# sources and the generated ones; consumers link it and include
# <lib>/RegisterKernels.h. See README.md, "Use from CMake".
#
# Each source is scanned on its own, with the target's real compile flags, by
# a build step whose depfile lists every file the scan read; one more step
# merges the fragments and generates. opscan writes files only when their
# content changes and touches a stamp per step, so an unchanged build runs
# nothing and a changed header re-scans without recompiling unchanged code.
#
# SCAN_PCH names a header the sources include (typically first): opscan
# precompiles it once, and every scan loads it instead of parsing it again,
# as if each source included it first. It speeds up the scans only; the
# compilation is unchanged.

include_guard(GLOBAL)

# Ninja: depfile paths are taken relative to the build directory (they are
# absolute anyway).
cmake_policy(SET CMP0116 NEW)

# The C++ keywords and alternative tokens, which are not identifiers (the
# same lists as opscan's lib/ident).
set(_OPSCAN_CXX_KEYWORDS
  alignas alignof asm auto bool break case catch char char8_t char16_t char32_t
  class co_await co_return co_yield concept const consteval constexpr constinit
  const_cast continue decltype default delete do double dynamic_cast else enum
  explicit export extern false float for friend goto if inline int long mutable
  namespace new noexcept nullptr operator private protected public register
  reinterpret_cast requires return short signed sizeof static static_assert
  static_cast struct switch template this thread_local throw true try typedef
  typeid typename union unsigned using virtual void volatile wchar_t while)
set(_OPSCAN_CXX_ALTERNATIVE_TOKENS and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq)

# Fails unless `name` can name a kernel library: an identifier that is not a
# keyword, not "all" (the unnamed library), and that makes an unreserved
# register_<name>_kernels. Bytes outside ASCII are left to opscan, which
# checks them against Unicode's identifier properties when it runs.
function(_opscan_check_library_name caller source name)
  if(name STREQUAL "")
    set(why "it is empty")
  elseif(name MATCHES "^[0-9]")
    set(why "it starts with a digit")
  elseif(name MATCHES "[] !\"#$%&'()*+,./:;<=>?@[\\^`{|}~\t\r\n-]")
    set(why "it contains '${CMAKE_MATCH_0}'")
  elseif(name STREQUAL "all")
    set(why "'all' is the name of the unnamed default library")
  elseif(name IN_LIST _OPSCAN_CXX_KEYWORDS)
    set(why "it is a C++ keyword")
  elseif(name IN_LIST _OPSCAN_CXX_ALTERNATIVE_TOKENS)
    set(why "it is a C++ alternative token")
  elseif(name MATCHES "^_|_$|__")
    set(why "register_${name}_kernels would be a reserved identifier (it would contain '__')")
  else()
    return()
  endif()
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" suggestion "${name}")
  string(REGEX REPLACE "__+" "_" suggestion "${suggestion}")
  string(REGEX REPLACE "^_+|_+$" "" suggestion "${suggestion}")
  if(suggestion MATCHES "^[0-9]" OR suggestion STREQUAL "")
    set(suggestion "lib_${suggestion}")
  endif()
  if(suggestion STREQUAL "all" OR suggestion IN_LIST _OPSCAN_CXX_KEYWORDS
     OR suggestion IN_LIST _OPSCAN_CXX_ALTERNATIVE_TOKENS)
    set(suggestion "${suggestion}_ops")
  endif()
  if(source STREQUAL "LIB_NAME")
    message(FATAL_ERROR "${caller}: LIB_NAME '${name}' cannot name a kernel library: ${why}. "
      "Did you mean '${suggestion}'?")
  else()
    message(FATAL_ERROR "${caller}: the target name '${name}' is the default library name, and "
      "it cannot name a kernel library: ${why}. Pass LIB_NAME <name> (for example LIB_NAME ${suggestion}).")
  endif()
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
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC;SHARED"
    "TARGET;REGISTRATION;LIB_NAME;DISPATCH_KEY;SCHEMAS;SCAN_PCH" "SOURCES;OPERATORS;COMPILE_OPTIONS")
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
    if(ARGV${i} MATCHES "^(TARGET|REGISTRATION|LIB_NAME|DISPATCH_KEY|SCHEMAS|SCAN_PCH|SOURCES|OPERATORS|COMPILE_OPTIONS)$"
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
    message(FATAL_ERROR "${caller}: TARGET is required: executorch or torch")
  elseif(NOT arg_TARGET MATCHES "^(executorch|torch)$")
    message(FATAL_ERROR "${caller}: TARGET must be executorch or torch, not '${arg_TARGET}'")
  endif()
  if(NOT DEFINED arg_REGISTRATION)
    message(FATAL_ERROR "${caller}: REGISTRATION is required: static, manual or named")
  elseif(NOT arg_REGISTRATION MATCHES "^(static|manual|named)$")
    message(FATAL_ERROR
      "${caller}: REGISTRATION must be static, manual or named, not '${arg_REGISTRATION}'")
  endif()
  if(DEFINED arg_DISPATCH_KEY AND NOT arg_TARGET STREQUAL "torch")
    message(FATAL_ERROR "${caller}: DISPATCH_KEY '${arg_DISPATCH_KEY}' applies to TARGET torch "
      "only, not TARGET ${arg_TARGET}")
  endif()
  if(arg_STATIC AND arg_SHARED)
    message(FATAL_ERROR "${caller}: give STATIC or SHARED, not both")
  endif()

  if(DEFINED arg_LIB_NAME)
    set(lib "${arg_LIB_NAME}")
    _opscan_check_library_name("${caller}" LIB_NAME "${lib}")
  else()
    set(lib "${target}")
    _opscan_check_library_name("${caller}" "target name" "${lib}")
  endif()
  if(DEFINED arg_LIB_NAME)
    set(source "LIB_NAME '${lib}'")
  else()
    set(source "the library name '${lib}' (the target name)")
  endif()
  _opscan_claim("${caller}" LIBRARY "${lib}" ${target}
    "${source} is already the name of kernel library target '<owner>'; each kernel library needs its own name")
  if(arg_REGISTRATION STREQUAL "named")
    set(symbol "register_${lib}_kernels")
  elseif(arg_REGISTRATION STREQUAL "manual")
    set(symbol "register_all_kernels")
  endif()
  if(symbol)
    # ExecuTorch's functions live in torch::executor, the torch target's in
    # the global namespace: each runtime has its own set.
    _opscan_claim("${caller}" "SYMBOL_${arg_TARGET}" "${symbol}" ${target}
      "REGISTRATION ${arg_REGISTRATION} defines ${symbol}(), which kernel library target '<owner>' defines too; use REGISTRATION named, which gives each library its own register_<name>_kernels()")
  endif()

  set(gen "${CMAKE_CURRENT_BINARY_DIR}/${target}.opscan")
  set(out "${gen}/include/${lib}")
  set(headers "${out}/RegisterKernels.h" "${out}/NativeFunctions.h")
  if(arg_TARGET STREQUAL "executorch")
    list(APPEND headers "${out}/Functions.h")
    set(data "${out}/selected_operators.yaml" "${out}/ir.json")
  else()
    set(data "${out}/ir.json")
  endif()
  set(generated ${headers} "${out}/RegisterKernels.cpp" ${data})

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
  if(DEFINED arg_SCHEMAS)
    get_filename_component(schemas "${arg_SCHEMAS}" ABSOLUTE)
    list(APPEND scan_options --schemas "${schemas}")
  endif()

  set(scan_depends "${flags_file}" ${opscan_exe})
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
  endif()

  # One scan per source, so the build tool runs them in parallel.
  set(fragments)
  set(stamps)
  set(index 0)
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE)
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

  set(generate_options --target ${arg_TARGET} --registration ${arg_REGISTRATION} --lib ${lib})
  if(DEFINED arg_DISPATCH_KEY)
    list(APPEND generate_options --dispatch-key ${arg_DISPATCH_KEY})
  endif()
  if(arg_OPERATORS)
    list(JOIN arg_OPERATORS "," operators)
    list(APPEND generate_options --operators "${operators}")
  endif()
  add_custom_command(
    OUTPUT "${gen}/generate.stamp"
    BYPRODUCTS ${generated}
    COMMAND opscan::opscan generate ${fragments} ${generate_options} -o "${gen}/include"
            --stamp "${gen}/generate.stamp"
    DEPENDS ${stamps} ${opscan_exe}
    COMMENT "opscan: generating registration code for kernel library '${lib}'"
    VERBATIM)

  # Every generated file is a source of the target (the data files are not
  # compiled), so IDEs list them and `make clean` removes them.
  target_sources(${target} PRIVATE ${arg_SOURCES} "${out}/RegisterKernels.cpp" ${data}
    "${gen}/generate.stamp")
  # Consumers include <lib>/RegisterKernels.h: the file set makes the
  # generated include directory a usage requirement, in the build tree and
  # wherever install(TARGETS ... FILE_SET HEADERS) puts it.
  target_sources(${target} PUBLIC FILE_SET HEADERS BASE_DIRS "${gen}/include" FILES ${headers})

  if(arg_REGISTRATION STREQUAL "static")
    # Nothing calls a statically registering library, so a linker taking it
    # from an archive would drop it; asking for the symbol the generated
    # registration defines keeps it, and the kernels it references.
    target_link_options(${target} INTERFACE
      "LINKER:--undefined=opscan_static_registration_${lib}")
  endif()

  set_target_properties(${target} PROPERTIES
    OPSCAN_LIB_NAME "${lib}"
    OPSCAN_RUNTIME "${arg_TARGET}"
    OPSCAN_LIBRARY_IR "${out}/ir.json"
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

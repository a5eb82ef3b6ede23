# Real programs on the real runtime (included by CMakeLists.txt, with et_dir,
# include_root and c10_dir set): ExecuTorch's executor and program loading,
# compiled from the checkout, and the checkout's portable kernel library
# migrated by opscan into the build tree (copied, `opscan import-yaml` with
# its functions.yaml, `opscan run --registration named`), with no hand edit.
# The checkout is only read.
#
# Defines opscan_et_real_executor (Program, Method, the file data loader),
# opscan_et_real_prim_ops (the executor and the prim ops, registered when
# linked), opscan_et_real_portable_kernels (the migrated kernels) and
# opscan_et_real_portable (opscan's registration of them,
# register_portable_kernels()), the same two for the checkout's quantized
# library (opscan_et_real_quantized_kernels, opscan_et_real_quantized), given
# PyTorch's headers the same two for its optimized library
# (opscan_et_real_optimized_kernels, opscan_et_real_optimized) with
# opscan_et_real_portable_rest (the portable kernels of the other
# operators), and the tests running programs on them.
# Options:
#   OPSCAN_NATIVE_FUNCTIONS_YAML  PyTorch's native_functions.yaml (not in an
#                                 ExecuTorch checkout), the known schemas of
#                                 the aten operators; empty: torchgen's, given
#                                 OPSCAN_EXECUTORCH_TORCHGEN, else schemas
#                                 inferred from the kernels' signatures
#   OPSCAN_EXECUTORCH_TORCHGEN    a directory holding PyTorch's `torchgen`
#                                 package: the same tests also run with the
#                                 registration ExecuTorch's own generator
#                                 (codegen/gen.py) writes, and their outputs
#                                 are compared byte for byte with opscan's
#   OPSCAN_EXECUTORCH_PYTHON      the Python that runs it (default python3)
#   OPSCAN_EXECUTORCH_TORCH_INCLUDE_DIR  a directory holding PyTorch's (2.x)
#                                 ATen/ and c10/ headers: the checkout's
#                                 optimized library is migrated and tested
#                                 too (it also needs a BLAS library)

# --- The executor -------------------------------------------------------
# Program, Method and the portable tensor parser read the program with the
# headers flatc generates from the checkout's schema, as ExecuTorch's
# schema/CMakeLists.txt generates them. EXECUTORCH_INTERNAL_FLATBUFFERS lets
# the distribution's flatbuffers (2.0.8 in Debian) compile them.
set(executor_sources
  runtime/backend/interface.cpp
  runtime/core/device_allocator.cpp
  runtime/core/device_memory_buffer.cpp
  runtime/core/tensor_layout.cpp
  runtime/executor/method.cpp
  runtime/executor/method_meta.cpp
  runtime/executor/program.cpp
  runtime/executor/program_validation.cpp
  runtime/executor/pte_data_map.cpp
  runtime/executor/tensor_parser_exec_aten.cpp
  runtime/executor/tensor_parser_portable.cpp
  schema/extended_header.cpp
  extension/data_loader/file_data_loader.cpp)
set(prim_ops_sources
  kernels/prim_ops/register_prim_ops.cpp
  kernels/prim_ops/et_copy_index.cpp
  kernels/prim_ops/et_view.cpp)
set(schema_sources schema/program.fbs schema/scalar_type.fbs)
opscan_et_real_require(${executor_sources} ${prim_ops_sources} ${schema_sources}
                       kernels/portable/functions.yaml)
list(TRANSFORM executor_sources PREPEND "${et_dir}/")
list(TRANSFORM prim_ops_sources PREPEND "${et_dir}/")
list(TRANSFORM schema_sources PREPEND "${et_dir}/")

# Generated headers go to an include root of their own, searched before the
# checkout's: <executorch/schema/program_generated.h> resolves there.
set(schema_root "${CMAKE_CURRENT_BINARY_DIR}/schema_include")
set(schema_headers "${schema_root}/executorch/schema/program_generated.h"
                   "${schema_root}/executorch/schema/scalar_type_generated.h")
add_custom_command(OUTPUT ${schema_headers}
  COMMAND "${OPSCAN_FLATC}" --cpp --cpp-std c++11 --gen-mutable --scoped-enums
          -o "${schema_root}/executorch/schema" ${schema_sources}
  DEPENDS ${schema_sources}
  COMMENT "flatc: ExecuTorch's program schema headers"
  VERBATIM)
add_custom_target(opscan_et_real_schema DEPENDS ${schema_headers})

add_library(opscan_et_real_executor STATIC ${executor_sources})
add_dependencies(opscan_et_real_executor opscan_et_real_schema)
target_include_directories(opscan_et_real_executor SYSTEM BEFORE PUBLIC "${schema_root}")
target_compile_definitions(opscan_et_real_executor PUBLIC EXECUTORCH_INTERNAL_FLATBUFFERS=1
                                                          FLATBUFFERS_MAX_ALIGNMENT=1024)
target_compile_options(opscan_et_real_executor PRIVATE -w)
target_link_libraries(opscan_et_real_executor PUBLIC opscan_et_real)
# The prim ops register themselves from a static initializer: objects, which
# a program linking opscan_et_real_prim_ops gets whole (with the executor).
add_library(opscan_et_real_prim_ops OBJECT ${prim_ops_sources})
add_dependencies(opscan_et_real_prim_ops opscan_et_real_schema)
target_link_libraries(opscan_et_real_prim_ops PUBLIC opscan_et_real_executor)
target_compile_options(opscan_et_real_prim_ops PRIVATE -w)

# --- The portable kernel library, migrated by opscan ---------------------
# The checkout's kernels/portable/cpu is copied into the build tree afresh on
# each run (import-yaml annotates in place), annotated from functions.yaml,
# then generated from, as a user migrating the library would: no hand edit.
set(OPSCAN_NATIVE_FUNCTIONS_YAML "" CACHE FILEPATH
    "Real ExecuTorch programs: PyTorch's native_functions.yaml, the aten operators' schemas")
set(OPSCAN_EXECUTORCH_TORCHGEN "" CACHE PATH
    "A directory holding PyTorch's torchgen package, to run ExecuTorch's own generator")
set(OPSCAN_EXECUTORCH_PYTHON python3 CACHE STRING "The Python that runs ExecuTorch's generator")
set(native_functions "${OPSCAN_NATIVE_FUNCTIONS_YAML}")
if(NOT native_functions AND OPSCAN_EXECUTORCH_TORCHGEN)
  set(native_functions
      "${OPSCAN_EXECUTORCH_TORCHGEN}/torchgen/packaged/ATen/native/native_functions.yaml")
endif()
# Scans see the runtime's headers and definitions, as the compilation does.
set(portable_flags -x c++ -std=c++17 -I${PROJECT_SOURCE_DIR}/include
    "-I$<JOIN:$<TARGET_PROPERTY:opscan_et_real,INTERFACE_INCLUDE_DIRECTORIES>,$<SEMICOLON>-I>"
    "-D$<JOIN:$<TARGET_PROPERTY:opscan_et_real,INTERFACE_COMPILE_DEFINITIONS>,$<SEMICOLON>-D>")
# Migrates the checkout's kernel library `lib` (the op_*.cpp of `src`,
# annotated from `yaml`) into <build>/<lib>/cpu and generates its named
# registration into <build>/<lib>/gen/<lib>, the run step given the SCHEMAS
# files. With CHECKED (the schemas cover every operator), the run step fails
# on an opscan-schema-unknown in its output. Defines
# opscan_et_real_<lib>_kernels (the migrated kernels and the HELPERS sources
# they call, ExecuTorch's own code: no warnings asked of them, built for a
# short build rather than speed, linked to LINK) and opscan_et_real_<lib>
# (opscan's registration of them, held to the warnings of generated code;
# "RegisterKernels.h" and "<lib>/RegisterKernels.h" include its header), and
# sets <lib>_gen in the caller's scope. The scan and the kernels' compilation
# also search the INCLUDES directories, before the runtime's, and see the
# DEFINITIONS; the op_*.cpp named in LEAVE_OUT are copied but neither
# annotated nor compiled (import-yaml reports their kernels as not placed).
function(opscan_et_real_migrate lib src yaml)
  cmake_parse_arguments(PARSE_ARGV 3 arg "CHECKED" ""
                        "SCHEMAS;HELPERS;LINK;INCLUDES;DEFINITIONS;LEAVE_OUT")
  set(copy "${CMAKE_CURRENT_BINARY_DIR}/${lib}/cpu")
  set(gen "${CMAKE_CURRENT_BINARY_DIR}/${lib}/gen")
  file(GLOB ops RELATIVE "${src}" CONFIGURE_DEPENDS "${src}/op_*.cpp")
  if(arg_LEAVE_OUT)
    list(REMOVE_ITEM ops ${arg_LEAVE_OUT})
  endif()
  list(TRANSFORM arg_INCLUDES PREPEND "-I" OUTPUT_VARIABLE include_flags)
  list(TRANSFORM arg_DEFINITIONS PREPEND "-D" OUTPUT_VARIABLE definition_flags)
  set(flags ${include_flags} ${portable_flags} ${definition_flags})
  file(GLOB_RECURSE inputs CONFIGURE_DEPENDS "${src}/*")
  list(TRANSFORM ops PREPEND "${copy}/" OUTPUT_VARIABLE kernels)
  set(generated ${gen}/${lib}/RegisterKernels.cpp ${gen}/${lib}/RegisterKernels.h
      ${gen}/${lib}/KernelSources.cpp ${gen}/${lib}/NativeFunctions.h ${gen}/${lib}/ir.json)
  set(run opscan)
  if(arg_CHECKED)
    set(run "${CMAKE_COMMAND}" -DFORBID=opscan-schema-unknown
        -P "${CMAKE_CURRENT_SOURCE_DIR}/forbid_diagnostic.cmake" -- $<TARGET_FILE:opscan>)
  endif()
  set(schemas ${arg_SCHEMAS})
  list(TRANSFORM schemas PREPEND "--schemas;")
  add_custom_command(OUTPUT ${kernels} ${generated}
    COMMAND "${CMAKE_COMMAND}" -E rm -rf "${copy}"
    COMMAND "${CMAKE_COMMAND}" -E copy_directory "${src}" "${copy}"
    COMMAND opscan import-yaml "${yaml}" ${kernels} -- ${flags}
    COMMAND ${run} run -j2 ${kernels} ${schemas} --registration named --lib ${lib} -o "${gen}"
            -- ${flags}
    DEPENDS opscan ${inputs} "${yaml}" ${arg_SCHEMAS}
            "${CMAKE_CURRENT_SOURCE_DIR}/forbid_diagnostic.cmake"
    COMMAND_EXPAND_LISTS
    COMMENT "opscan: ExecuTorch's ${lib} library, migrated (import-yaml) and generated")

  add_library(opscan_et_real_${lib}_kernels STATIC ${kernels} ${arg_HELPERS})
  target_link_libraries(opscan_et_real_${lib}_kernels PUBLIC ${arg_LINK})
  target_include_directories(opscan_et_real_${lib}_kernels BEFORE PRIVATE ${arg_INCLUDES})
  target_include_directories(opscan_et_real_${lib}_kernels PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(opscan_et_real_${lib}_kernels PRIVATE ${arg_DEFINITIONS})
  # -Wno-psabi as ExecuTorch's CMake: GCC's notes on passing ATen's 32-byte
  # Vectorized, which -w leaves.
  target_compile_options(opscan_et_real_${lib}_kernels PRIVATE -O0 -g0 -w
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-psabi>)
  add_library(opscan_et_real_${lib} STATIC ${gen}/${lib}/RegisterKernels.cpp
                                           ${gen}/${lib}/KernelSources.cpp)
  target_link_libraries(opscan_et_real_${lib} PUBLIC opscan_et_real_${lib}_kernels)
  target_include_directories(opscan_et_real_${lib} PUBLIC ${gen}/${lib} ${gen})
  target_compile_options(opscan_et_real_${lib} PRIVATE -Wall -Wextra ${OPSCAN_WERROR_FLAG})
  set(${lib}_gen "${gen}" PARENT_SCOPE)
endfunction()

set(portable_src "${et_dir}/kernels/portable/cpu")
set(portable_yaml "${et_dir}/kernels/portable/functions.yaml")
# The helpers the kernels call, compiled from the checkout (not annotated).
file(GLOB portable_helpers CONFIGURE_DEPENDS "${portable_src}/util/*.cpp"
                                             "${portable_src}/pattern/*.cpp")
# functions.yaml's own func: schemas (dim_order_ops, et_copy, ...) as well as
# native_functions.yaml's: with both, every operator has a known schema.
if(native_functions)
  message(STATUS "opscan real ExecuTorch programs: aten schemas from ${native_functions}")
  set(portable_checked CHECKED)
else()
  message(STATUS "opscan real ExecuTorch programs: no native_functions.yaml "
                 "(OPSCAN_NATIVE_FUNCTIONS_YAML), the aten kernels' schemas are inferred")
  set(portable_checked)
endif()
opscan_et_real_migrate(portable "${portable_src}" "${portable_yaml}" ${portable_checked}
                       SCHEMAS ${native_functions} "${portable_yaml}"
                       HELPERS ${portable_helpers} LINK opscan_et_real)
# The quantized library: custom operators (quantized_decomposed::) whose
# schemas are quantized.yaml's own; its helper embeddingxb.cpp from the
# checkout, the portable helpers it calls from the portable kernels.
set(quantized_yaml "${et_dir}/kernels/quantized/quantized.yaml")
opscan_et_real_migrate(quantized "${et_dir}/kernels/quantized/cpu" "${quantized_yaml}" CHECKED
                       SCHEMAS "${quantized_yaml}"
                       HELPERS ${et_dir}/kernels/quantized/cpu/embeddingxb.cpp
                       LINK opscan_et_real_portable_kernels)

# The operators (ns::name.overload) of an ExecuTorch kernel YAML's `op:` and
# `func:` entries, into `var`.
function(opscan_et_real_yaml_operators var yaml)
  file(STRINGS "${yaml}" entries REGEX "^- (op|func): ")
  list(TRANSFORM entries REPLACE "^- (op|func): *([^( ]+).*" "\\2")
  list(TRANSFORM entries REPLACE "^([^:]+)$" "aten::\\1")
  set(${var} "${entries}" PARENT_SCOPE)
endfunction()

# The optimized library, given PyTorch's headers (its kernels and cpublas
# use ATen/cpu/vec and ATen/native/cpu, header-only) and a BLAS with the
# Fortran ABI (sgemm_, dgemm_: CPUBlas.cpp's ET_BUILD_WITH_BLAS, in place of
# the Eigen BLAS ExecuTorch builds from a submodule). Compiled as ExecuTorch's
# kernels/optimized/CMakeLists.txt compiles it, PyTorch's c10 before the
# checkout's copy; without ET_USE_THREADPOOL, so parallel_for runs inline
# (no extension/threadpool, pthreadpool or cpuinfo: cpuinfo is only called on
# aarch64). The two FFT kernels include pocketfft_hdronly.h, from a submodule
# no Debian package provides: op_fft_*.cpp are left out, and import-yaml
# says their two kernels are not placed.
set(OPSCAN_EXECUTORCH_TORCH_INCLUDE_DIR "" CACHE PATH
    "Real ExecuTorch programs: PyTorch's ATen/ and c10/ headers, for the optimized library")
set(torch_include "${OPSCAN_EXECUTORCH_TORCH_INCLUDE_DIR}")
set(optimized_sources kernels/optimized/optimized.yaml kernels/optimized/cpu/binary_ops.cpp
                      kernels/optimized/blas/BlasKernel.cpp kernels/optimized/blas/CPUBlas.cpp)
set(optimized_missing)
if(NOT torch_include)
  set(optimized_missing "PyTorch's headers (OPSCAN_EXECUTORCH_TORCH_INCLUDE_DIR)")
elseif(NOT EXISTS "${torch_include}/ATen/cpu/vec/vec.h" OR NOT EXISTS "${torch_include}/c10/util/Half.h")
  set(optimized_missing "ATen/cpu/vec/vec.h and c10/util/Half.h in ${torch_include}")
endif()
opscan_et_real_missing(missing ${optimized_sources})
list(APPEND optimized_missing ${missing})
find_package(BLAS QUIET)
if(NOT BLAS_FOUND)
  list(APPEND optimized_missing "a BLAS library (Debian: libblas-dev or libopenblas-dev)")
endif()
set(optimized_lib OFF)
if(optimized_missing)
  list(JOIN optimized_missing ", " optimized_missing)
  message(STATUS "opscan real ExecuTorch programs: kernels/optimized left out, missing "
                 "${optimized_missing}")
else()
  set(optimized_lib ON)
  message(STATUS "opscan real ExecuTorch programs: kernels/optimized with PyTorch's headers "
                 "from ${torch_include}, BLAS ${BLAS_LIBRARIES}")
  set(optimized_yaml "${et_dir}/kernels/optimized/optimized.yaml")
  set(optimized_helpers ${optimized_sources})
  list(REMOVE_AT optimized_helpers 0)
  list(TRANSFORM optimized_helpers PREPEND "${et_dir}/")
  opscan_et_real_migrate(optimized "${et_dir}/kernels/optimized/cpu" "${optimized_yaml}"
                         ${portable_checked} SCHEMAS ${native_functions} "${optimized_yaml}"
                         INCLUDES "${torch_include}"
                         DEFINITIONS ET_USE_PYTORCH_HEADERS=ET_HAS_EXCEPTIONS ET_BUILD_WITH_BLAS
                         LEAVE_OUT op_fft_c2r.cpp op_fft_r2c.cpp
                         HELPERS ${optimized_helpers}
                         LINK opscan_et_real_portable_kernels ${BLAS_LIBRARIES})
  # ExecuTorch's optimized_native_cpu_ops_lib registers optimized.yaml's
  # kernels and, for every other operator, portable's (merge_yaml): here
  # register_optimized_kernels() and portable_rest, the portable library's IR
  # generated again for the operators optimized.yaml does not name
  # (--operators), so that no operator is registered twice.
  opscan_et_real_yaml_operators(optimized_operators "${optimized_yaml}")
  opscan_et_real_yaml_operators(portable_rest_operators "${portable_yaml}")
  list(REMOVE_ITEM portable_rest_operators ${optimized_operators})
  list(REMOVE_ITEM optimized_operators aten::_fft_c2r.out aten::_fft_r2c.out)
  list(JOIN portable_rest_operators "," rest)
  set(rest_gen "${CMAKE_CURRENT_BINARY_DIR}/portable_rest/gen")
  add_custom_command(OUTPUT ${rest_gen}/portable_rest/RegisterKernels.cpp
                            ${rest_gen}/portable_rest/RegisterKernels.h
                            ${rest_gen}/portable_rest/KernelSources.cpp
    COMMAND opscan generate ${portable_gen}/portable/ir.json --operators ${rest}
            --registration named --lib portable_rest -o ${rest_gen}
    DEPENDS opscan ${portable_gen}/portable/ir.json
    COMMENT "opscan: the portable library's kernels of the operators optimized.yaml does not name")
  add_library(opscan_et_real_portable_rest STATIC ${rest_gen}/portable_rest/RegisterKernels.cpp
                                                  ${rest_gen}/portable_rest/KernelSources.cpp)
  target_link_libraries(opscan_et_real_portable_rest PUBLIC opscan_et_real_portable_kernels)
  target_include_directories(opscan_et_real_portable_rest PUBLIC ${rest_gen}/portable_rest ${rest_gen})
  target_compile_options(opscan_et_real_portable_rest PRIVATE -Wall -Wextra ${OPSCAN_WERROR_FLAG})
  # Its kernels are the portable library's (for the peer's build).
  add_library(opscan_et_real_portable_rest_kernels INTERFACE)
  target_link_libraries(opscan_et_real_portable_rest_kernels INTERFACE opscan_et_real_portable_kernels)
endif()

# --- The peer: ExecuTorch's own generator ---------------------------------
# Run from the checkout as its tools/cmake/Codegen.cmake runs it (gen_oplist
# on functions.yaml, then codegen.gen), writing into the build tree (its
# bytecode too). The same tests, built with its registration in place of
# opscan's, run the same programs; their outputs must be byte-identical.
if(OPSCAN_EXECUTORCH_TORCHGEN)
  set(torchgen "${OPSCAN_EXECUTORCH_TORCHGEN}/torchgen")
  if(NOT EXISTS "${torchgen}/packaged/ATen/native/native_functions.yaml"
     OR NOT EXISTS "${et_dir}/codegen/gen.py")
    message(FATAL_ERROR "OPSCAN_EXECUTORCH_TORCHGEN=${OPSCAN_EXECUTORCH_TORCHGEN}: needs "
      "torchgen/packaged/ATen/native/native_functions.yaml there and codegen/gen.py in the checkout")
  endif()
  # ExecuTorch's generator's registration of library `lib` into
  # <build>/<lib>/peer, `yaml` given as `yaml_option` (--functions-yaml-path
  # or, for custom operators, --custom-ops-yaml-path): of all its operators
  # or, given ROOT_OPS, of those (gen_oplist --root_ops, ExecuTorch's
  # selective build).
  function(opscan_et_real_peer lib yaml yaml_option)
    cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "ROOT_OPS")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${lib}/peer")
    set(env "${CMAKE_COMMAND}" -E env "PYTHONPATH=${OPSCAN_EXECUTORCH_TORCHGEN}"
        "PYTHONPYCACHEPREFIX=${CMAKE_CURRENT_BINARY_DIR}/${lib}/pycache")
    set(selection --ops_schema_yaml_path=${yaml})
    if(arg_ROOT_OPS)
      list(JOIN arg_ROOT_OPS "," root_ops)
      set(selection --root_ops=${root_ops})
    endif()
    add_custom_command(OUTPUT ${out}/RegisterCodegenUnboxedKernelsEverything.cpp ${out}/NativeFunctions.h
      COMMAND ${env} ${OPSCAN_EXECUTORCH_PYTHON} -m codegen.tools.gen_oplist
              --output_path=${out}/selected_operators.yaml ${selection}
      COMMAND ${env} ${OPSCAN_EXECUTORCH_PYTHON} -m codegen.gen --source-path=${et_dir}/codegen
              --install-dir=${out} --tags-path=${torchgen}/packaged/ATen/native/tags.yaml
              --aten-yaml-path=${torchgen}/packaged/ATen/native/native_functions.yaml
              --op-selection-yaml-path=${out}/selected_operators.yaml ${yaml_option}=${yaml}
      WORKING_DIRECTORY "${et_dir}"
      DEPENDS "${yaml}"
      COMMENT "ExecuTorch's generator (codegen/gen.py): the ${lib} library's registration"
      VERBATIM)
  endfunction()
  opscan_et_real_peer(portable "${portable_yaml}" --functions-yaml-path)
  opscan_et_real_peer(quantized "${quantized_yaml}" --custom-ops-yaml-path)
  if(optimized_lib)
    opscan_et_real_peer(optimized "${optimized_yaml}" --functions-yaml-path
                        ROOT_OPS ${optimized_operators})
    opscan_et_real_peer(portable_rest "${portable_yaml}" --functions-yaml-path
                        ROOT_OPS ${portable_rest_operators})
  endif()
endif()

# Each test, with opscan's registration and, given the peer, with its, of
# the libraries it calls (libs_<test>, default portable). The checkout's
# programs are tested when the checkout has them (a partial copy of
# ExecuTorch's sources may not). The quantized test registers the portable
# and quantized libraries in one program, each by its named function.
set(outputs_dir "${CMAKE_CURRENT_BINARY_DIR}/outputs")
set(program_tests json_programs quantized_programs)
set(libs_quantized_programs portable quantized)
if(optimized_lib)
  list(APPEND program_tests optimized_programs)
  set(libs_optimized_programs optimized portable_rest)
endif()
set(checkout_programs test/models/deprecated/ModuleLinear-no-constant-segment.pte
    examples/arduino/examples/AddModel/model.pte extension/apple/ExecuTorch/__tests__/resources/add.pte)
opscan_et_real_missing(missing ${checkout_programs})
if(missing)
  list(JOIN missing ", " missing)
  message(STATUS "opscan real ExecuTorch programs: the checkout lacks ${missing}: "
                 "et_real_checkout_programs_test left out")
else()
  list(PREPEND program_tests checkout_programs)
endif()
foreach(test IN LISTS program_tests)
  set(variants opscan)
  if(OPSCAN_EXECUTORCH_TORCHGEN)
    list(APPEND variants peer)
  endif()
  set(libs portable)
  if(DEFINED libs_${test})
    set(libs ${libs_${test}})
  endif()
  foreach(variant IN LISTS variants)
    set(target et_real_${test}_test)
    if(variant STREQUAL "opscan")
      add_executable(${target} ${test}_test.cpp)
      list(TRANSFORM libs PREPEND opscan_et_real_ OUTPUT_VARIABLE registrations)
      target_link_libraries(${target} PRIVATE ${registrations})
    else()
      set(target et_real_${test}_peer_test)
      add_executable(${target} ${test}_test.cpp)
      target_compile_definitions(${target} PRIVATE OPSCAN_ET_REAL_PEER)
      foreach(lib IN LISTS libs)
        set(peer_registration ${CMAKE_CURRENT_BINARY_DIR}/${lib}/peer/RegisterCodegenUnboxedKernelsEverything.cpp)
        target_sources(${target} PRIVATE ${peer_registration})
        set_source_files_properties(${peer_registration} TARGET_DIRECTORY ${target}
                                    PROPERTIES COMPILE_OPTIONS -w)
        target_link_libraries(${target} PRIVATE opscan_et_real_${lib}_kernels)
      endforeach()
    endif()
    target_link_libraries(${target} PRIVATE opscan_et_real_prim_ops GTest::gtest_main
                          nlohmann_json::nlohmann_json)
    target_include_directories(${target} PRIVATE include ${PROJECT_SOURCE_DIR}/test/common)
    target_compile_options(${target} PRIVATE -Wall -Wextra ${OPSCAN_WERROR_FLAG})
    target_compile_definitions(${target} PRIVATE OPSCAN_EXECUTORCH_SOURCE_DIR="${et_dir}"
      OPSCAN_FLATC="${OPSCAN_FLATC}" OPSCAN_PTE_SCHEMA="${et_dir}/schema/program.fbs"
      OPSCAN_PTE_SCHEMA_DIR="${et_dir}/schema")
    set(prefix)
    if(variant STREQUAL "peer")
      set(prefix "peer:")
    endif()
    gtest_discover_tests(${target} TEST_PREFIX "${prefix}" PROPERTIES LABELS e2e DISCOVERY_TIMEOUT 60)
    if(OPSCAN_EXECUTORCH_TORCHGEN)
      # The whole executable once more, recording its outputs.
      add_test(NAME ${target}.outputs
               COMMAND "${CMAKE_COMMAND}" -E env OPSCAN_ET_REAL_OUTPUTS=${outputs_dir}/${variant}
                       $<TARGET_FILE:${target}>)
      set_tests_properties(${target}.outputs PROPERTIES LABELS e2e FIXTURES_SETUP et_real_outputs
                                                        FIXTURES_REQUIRED et_real_outputs_clean)
    endif()
  endforeach()
endforeach()
if(OPSCAN_EXECUTORCH_TORCHGEN)
  message(STATUS "opscan real ExecuTorch programs: also with ExecuTorch's generator's registration "
                 "(torchgen from ${OPSCAN_EXECUTORCH_TORCHGEN}), outputs compared")
  add_test(NAME et_real_outputs.clean COMMAND "${CMAKE_COMMAND}" -E rm -rf ${outputs_dir})
  set_tests_properties(et_real_outputs.clean PROPERTIES LABELS e2e FIXTURES_SETUP et_real_outputs_clean)
  add_test(NAME et_real_outputs_byte_identical
           COMMAND "${CMAKE_COMMAND}" -DA=${outputs_dir}/opscan -DB=${outputs_dir}/peer
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/compare_outputs.cmake)
  set_tests_properties(et_real_outputs_byte_identical PROPERTIES LABELS e2e
                       FIXTURES_REQUIRED et_real_outputs)
endif()

# The portable library's kernel table as a method-scoped registry, and its
# registration counted (opscan's registration only: the peer has no table).
add_executable(et_real_kernel_table_test kernel_table_test.cpp)
target_link_libraries(et_real_kernel_table_test PRIVATE opscan_et_real_portable opscan_et_real_prim_ops
                      GTest::gtest_main nlohmann_json::nlohmann_json)
target_include_directories(et_real_kernel_table_test PRIVATE include ${PROJECT_SOURCE_DIR}/test/common)
target_compile_options(et_real_kernel_table_test PRIVATE -Wall -Wextra ${OPSCAN_WERROR_FLAG})
target_compile_definitions(et_real_kernel_table_test PRIVATE OPSCAN_FLATC="${OPSCAN_FLATC}"
  OPSCAN_PTE_SCHEMA="${et_dir}/schema/program.fbs" OPSCAN_PTE_SCHEMA_DIR="${et_dir}/schema")
gtest_discover_tests(et_real_kernel_table_test PROPERTIES LABELS e2e DISCOVERY_TIMEOUT 60)

# Prim-op selection against the checkout's register_prim_ops.cpp: the
# stand-in's test (test/e2e/prim_ops_test.cpp) on the real runtime. Its
# model (test/data/pte/prim_ops.json, made a .pte by flatc with the
# checkout's schema) calls aten::add.out and three prim ops; `opscan generate
# --operators-from` on it, from the migrated portable library's IR, writes
# library 'prim' (aten::add.out) and selected_prim_ops.h, with which the
# checkout's prim ops are compiled again, selectively, into the test.
set(prim_json ${PROJECT_SOURCE_DIR}/test/data/pte/prim_ops.json)
set(prim_out ${CMAKE_CURRENT_BINARY_DIR}/prim_selection)
add_custom_command(OUTPUT ${prim_out}/prim_ops.pte
  COMMAND ${OPSCAN_FLATC} -b -o ${prim_out} ${et_dir}/schema/program.fbs ${prim_json}
  DEPENDS ${prim_json} ${et_dir}/schema/program.fbs
  COMMENT "flatc: the prim-op model, with the checkout's schema")
add_custom_command(OUTPUT ${prim_out}/prim/selected_prim_ops.h ${prim_out}/prim/RegisterKernels.cpp
                          ${prim_out}/prim/KernelSources.cpp ${prim_out}/prim/RegisterKernels.h
  COMMAND opscan generate ${portable_gen}/portable/ir.json --operators-from ${prim_out}/prim_ops.pte
          --registration named --lib prim -o ${prim_out}
  DEPENDS opscan ${portable_gen}/portable/ir.json ${prim_out}/prim_ops.pte
  COMMENT "opscan: the prim-op model's selection from the portable library")
add_executable(et_real_prim_ops_test ${PROJECT_SOURCE_DIR}/test/e2e/prim_ops_test.cpp
               ${prim_ops_sources} ${prim_out}/prim/RegisterKernels.cpp ${prim_out}/prim/KernelSources.cpp)
set_source_files_properties(${prim_ops_sources} TARGET_DIRECTORY et_real_prim_ops_test
                            PROPERTIES COMPILE_OPTIONS -w)
add_dependencies(et_real_prim_ops_test opscan_et_real_schema)
target_include_directories(et_real_prim_ops_test PRIVATE ${prim_out}/prim)
target_compile_definitions(et_real_prim_ops_test PRIVATE ET_PRIM_OPS_SELECTIVE_BUILD
                                                         EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD)
target_link_libraries(et_real_prim_ops_test PRIVATE opscan_et_real_executor
                      opscan_et_real_portable_kernels GTest::gtest_main)
target_compile_options(et_real_prim_ops_test PRIVATE -Wall -Wextra ${OPSCAN_WERROR_FLAG})
gtest_discover_tests(et_real_prim_ops_test TEST_PREFIX "real:"
                     PROPERTIES LABELS e2e DISCOVERY_TIMEOUT 60)

# A library keyed only for contiguous tensors, and programs calling it with
# contiguous and channels-last tensors.
set(contiguous_kernel ${CMAKE_CURRENT_SOURCE_DIR}/contiguous_kernel.cpp)
set(contiguous_gen ${CMAKE_CURRENT_BINARY_DIR}/contiguous)
add_custom_command(OUTPUT ${contiguous_gen}/contiguous/RegisterKernels.cpp
                          ${contiguous_gen}/contiguous/RegisterKernels.h
                          ${contiguous_gen}/contiguous/KernelSources.cpp
  COMMAND opscan run ${contiguous_kernel} --registration named --lib contiguous -o ${contiguous_gen}
          -- ${portable_flags}
  DEPENDS opscan ${contiguous_kernel}
  COMMAND_EXPAND_LISTS
  COMMENT "opscan: a kernel keyed for contiguous tensors")
add_executable(et_real_dim_order_test dim_order_test.cpp ${contiguous_kernel}
               ${contiguous_gen}/contiguous/RegisterKernels.cpp ${contiguous_gen}/contiguous/KernelSources.cpp)
target_link_libraries(et_real_dim_order_test PRIVATE opscan_et_real_prim_ops GTest::gtest_main
                      nlohmann_json::nlohmann_json)
target_include_directories(et_real_dim_order_test PRIVATE include ${contiguous_gen}/contiguous
                           ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/test/common)
target_compile_options(et_real_dim_order_test PRIVATE -Wall -Wextra ${OPSCAN_WERROR_FLAG})
target_compile_definitions(et_real_dim_order_test PRIVATE OPSCAN_FLATC="${OPSCAN_FLATC}"
  OPSCAN_PTE_SCHEMA="${et_dir}/schema/program.fbs" OPSCAN_PTE_SCHEMA_DIR="${et_dir}/schema")
gtest_discover_tests(et_real_dim_order_test PROPERTIES LABELS e2e DISCOVERY_TIMEOUT 60)

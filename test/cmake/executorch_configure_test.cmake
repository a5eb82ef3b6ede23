# The executorch target without compiling anything against ExecuTorch:
# configure, run the generation step only, then check that every file opscan
# generated is a source of the target and that the include directory is a
# usage requirement, in the build tree and in the exported targets. Then
# OPERATORS selects what is registered, SCHEMAS gives known schemas from
# several files, EXCEPTION_BOUNDARY puts a try/catch in each wrapper, and
# OPERATORS_FROM selects from a selection file, prim ops apart.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(executorch)
run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
expect_no_match("${out}" "Building|Linking" "generation step")

set(include_dir ${build}/portable_kernels.opscan/include)
file(GLOB generated RELATIVE ${include_dir}/portable ${include_dir}/portable/*)
list(SORT generated)
set(expected Functions.h KernelSources.cpp NativeFunctions.h RegisterKernels.cpp RegisterKernels.h
    ir.json kernel_count selected_operators.yaml)
if(NOT generated STREQUAL expected)
  message(FATAL_ERROR "generated files: expected ${expected}, got ${generated}")
endif()

file(READ ${build}/target-properties.txt properties)
string(REGEX MATCH "SOURCES=[^\n]*" sources "${properties}")
string(REGEX MATCH "HEADER_SET=[^\n]*" header_set "${properties}")
list(REMOVE_ITEM generated kernel_count)
list(APPEND generated kernel_count/executorch/runtime/kernel/selected_max_kernel_num.h)
foreach(file IN LISTS generated)
  expect_contains("${sources};${header_set}" "${include_dir}/portable/${file}" "target sources")
endforeach()
foreach(header Functions.h NativeFunctions.h RegisterKernels.h)
  expect_contains("${header_set}" "${include_dir}/portable/${header}" "header set")
endforeach()
string(REGEX MATCH "INTERFACE_INCLUDE_DIRECTORIES=[^\n]*" includes "${properties}")
expect_contains("${includes}" "${include_dir}" "build-tree include directories")

file(GLOB exported ${build}/CMakeFiles/Export/*/et_kernels.cmake)
if(NOT exported)
  message(FATAL_ERROR "no exported targets file under ${build}/CMakeFiles/Export")
endif()
file(READ ${exported} exported)
expect_contains("${exported}" "BASE_DIRS \"\${_IMPORT_PREFIX}/include\"" "exported targets")
foreach(header Functions.h NativeFunctions.h RegisterKernels.h)
  expect_contains("${exported}" "\${_IMPORT_PREFIX}/include/portable/${header}" "exported targets")
endforeach()

# OPERATORS: only the operators selected are generated.
file(READ ${include_dir}/portable/selected_operators.yaml selected)
expect_contains("${selected}" "demo::sum_dims.out:" "all operators")
run(out ${CMAKE_COMMAND} ${build} -DSELECTED=demo::triple.out,demo::mean.out)
run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
file(READ ${include_dir}/portable/selected_operators.yaml selected)
expect_contains("${selected}" "demo::triple.out:" "selected operators")
expect_contains("${selected}" "demo::mean.out:" "selected operators")
expect_no_match("${selected}" "demo::sum_dims.out|demo::pick" "selected operators")

# SCHEMAS: every file counts; a kernel of an operator none knows warns.
file(WRITE ${WORK_DIR}/triple.txt
     "demo::triple.out(Tensor input, *, Tensor(a!) result) -> Tensor(a!)\n")
file(WRITE ${WORK_DIR}/mean.yaml
     "- func: demo::mean.out(Tensor self, int[]? dims=None, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)\n")
run(out ${CMAKE_COMMAND} ${build} -DSELECTED= -DSCHEMAS=${WORK_DIR}/triple.txt,${WORK_DIR}/mean.yaml)
run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
expect_match("${out}" "warning: kernel 'example::reduce::sum_dims_out': demo::sum_dims.out is in none of the schemas files given[^\n]*\\[opscan-schema-unknown\\]" "build")
file(READ ${include_dir}/portable/NativeFunctions.h declarations)
expect_contains("${declarations}" "// demo::triple.out(Tensor input, *, Tensor(a!) result) -> Tensor(a!)" "known schemas")
expect_contains("${declarations}" "// demo::mean.out(Tensor self, int[]? dims=None, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)" "known schemas")

# EXCEPTION_BOUNDARY: off by default, then on (opscan --exception-boundary).
file(READ ${include_dir}/portable/RegisterKernels.cpp registration)
expect_no_match("${registration}" "catch \\(" "registration without EXCEPTION_BOUNDARY")
run(out ${CMAKE_COMMAND} ${build} -DWITH_EXCEPTION_BOUNDARY=ON)
run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
file(READ ${include_dir}/portable/RegisterKernels.cpp registration)
expect_contains("${registration}" "} catch (const ::std::exception& exception) {"
                "registration with EXCEPTION_BOUNDARY")

# OPERATORS_FROM: the selection file's operators, and the prim ops it names in
# a header of their own, declared like the other generated headers. Editing
# the file runs the generation again.
file(WRITE ${WORK_DIR}/selected.yaml
     "operators:\n  demo::triple.out: {is_root_operator: true}\n  aten::sym_size.int: {is_root_operator: true}\n")
run(out ${CMAKE_COMMAND} ${build} -DWITH_EXCEPTION_BOUNDARY=OFF -DSCHEMAS= -DSELECTED_FROM=${WORK_DIR}/selected.yaml)
run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
file(READ ${include_dir}/portable/selected_operators.yaml selected)
expect_contains("${selected}" "demo::triple.out:" "OPERATORS_FROM")
expect_no_match("${selected}" "demo::mean.out|aten::sym_size" "OPERATORS_FROM")
file(READ ${include_dir}/portable/selected_prim_ops.h prim_ops)
expect_contains("${prim_ops}" "#define INCLUDE_ATEN_SYM_SIZE_INT" "selected_prim_ops.h")
file(READ ${build}/target-properties.txt properties)
string(REGEX MATCH "HEADER_SET=[^\n]*" header_set "${properties}")
expect_contains("${header_set}" "${include_dir}/portable/selected_prim_ops.h" "header set")
file(APPEND ${WORK_DIR}/selected.yaml "  demo::mean.out: {is_root_operator: true}\n")
run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
file(READ ${include_dir}/portable/selected_operators.yaml selected)
expect_contains("${selected}" "demo::mean.out:" "OPERATORS_FROM after an edit")

# Two kernel libraries registering the same operator, linked into one
# program: the build fails at opscan's check, naming the operator, before the
# program is linked.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(executorch -DBUILD_PROGRAM=ON -DWITH_OVERLAP=ON)
run_failing(out ${CMAKE_COMMAND} --build ${build})
expect_contains("${out}" "opscan: checking the kernel libraries linked into run_kernels (portable, more_kernels)" "build")
expect_match("${out}" "demo::triple.out[^\n]*opscan-library-overlap" "build")
expect_no_match("${out}" "Linking CXX executable run_kernels" "build")

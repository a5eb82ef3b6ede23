# test/cmake/aot_consumer against the installed opscan package: a kernel
# library with TARGET executorch-aot (compiled and scanned in ExecuTorch's
# ATen mode, with Debian's libtorch), its operator called through PyTorch's
# dispatcher.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(aot_consumer)
run(out ${CMAKE_COMMAND} --build ${build})
expect_contains("${out}" "opscan: scanning my_ops.cpp (kernel library 'my_ops_aot')" "build")
run(out ${build}/aot_tool)
expect_contains("${out}" "executorch-aot operators work" "aot_tool")

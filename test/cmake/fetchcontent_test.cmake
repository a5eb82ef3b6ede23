# opscan added to a project from its source tree (FetchContent with a local
# SOURCE_DIR, which is add_subdirectory): the same function builds the
# ExecuTorch library and a program that registers it.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(executorch -DOPSCAN_FETCH=ON -DBUILD_PROGRAM=ON)
run(out ${CMAKE_COMMAND} --build ${build})
expect_contains("${out}" "opscan: scanning scale.cpp" "build")
run(out ${build}/run_kernels)
expect_contains("${out}" "portable kernels registered" "run_kernels")

# opscan added to a project from its source tree (FetchContent with a local
# SOURCE_DIR, which is add_subdirectory): the same function builds the
# ExecuTorch library and a program that registers it.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
# The tool unoptimised: what is tested here is how it is built and used, and
# an optimised build would make this the suite's slowest test by far.
configure_project(executorch -DOPSCAN_FETCH=ON -DBUILD_PROGRAM=ON -DOPSCAN_HOST_BUILD_TYPE=None)
run(out ${CMAKE_COMMAND} --build ${build})
expect_contains("${out}" "opscan: scanning scale.cpp" "build")
run(out ${build}/run_kernels)
expect_contains("${out}" "portable kernels registered" "run_kernels")
# The tool was built as asked.
file(STRINGS ${build}/_deps/opscan-build/host/CMakeCache.txt build_type REGEX "^CMAKE_BUILD_TYPE:")
expect_contains("${build_type}" "CMAKE_BUILD_TYPE:STRING=None" "the tool's build type")

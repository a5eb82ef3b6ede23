# opscan_add_kernel_library(... TARGET executorch) against an ExecuTorch
# installed with its own CMake package (test/cmake/executorch_installed):
# opscan scans the kernels with ExecuTorch's real headers, the library links
# the package's executorch_core, and a program registers the kernels and runs
# one through ExecuTorch's registry. EXECUTORCH_PREFIX: the install prefix.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(executorch_installed -DOPSCAN_EXECUTORCH_INSTALL_DIR=${EXECUTORCH_PREFIX})
run(out ${CMAKE_COMMAND} --build ${build})
expect_contains("${out}" "opscan: scanning scale.cpp (kernel library 'demo')" "build")

# The scans were given ExecuTorch's include directories, as the compiler was.
file(GLOB flags_files ${build}/*.opscan/flags-*.txt)
if(NOT flags_files)
  message(FATAL_ERROR "no flags file under ${build}")
endif()
file(READ "${build}/CMakeCache.txt" cache)
string(REGEX MATCH "executorch_DIR:PATH=([^\n]*)" _ "${cache}")
set(executorch_dir "${CMAKE_MATCH_1}")
cmake_path(GET executorch_dir PARENT_PATH et_lib_cmake)
cmake_path(GET et_lib_cmake PARENT_PATH et_lib)
cmake_path(GET et_lib PARENT_PATH et_prefix)
list(GET flags_files 0 flags_file)
file(READ ${flags_file} flags)
expect_contains("${flags}" "-I${et_prefix}/include" "scan flags")

run(out ${build}/run_kernels)
expect_contains("${out}" "demo kernels registered and run by ExecuTorch's registry" "run_kernels")

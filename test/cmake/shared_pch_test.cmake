# A kernel library of seven sources that start with the same #include lines,
# built with GENERATOR: a step before the scans precompiles those lines once
# into the scans' cache, each scan loads it, and every fragment is the IR a
# scan without any precompiled header gives. A second build does nothing; an
# edited source re-scans that source only.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(src ${WORK_DIR}/src)
set(build ${WORK_DIR}/build)
set(sources)
foreach(i RANGE 1 7)
  file(WRITE ${src}/kernels/k${i}.cpp [[
#include <functional>
#include <map>
#include <vector>
#include <opscan/annotations.h>
#include <opscan_examples/executorch_types.h>

namespace shared {
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;
]] "
OPSCAN_KERNEL(\"demo::k${i}.out\")
Tensor& k${i}_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx, (void)self;
  return out;
}
} // namespace shared
")
  list(APPEND sources kernels/k${i}.cpp)
endforeach()
list(JOIN sources " " sources)
file(WRITE ${src}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(shared_pch CXX)
find_package(opscan CONFIG REQUIRED)
opscan_add_kernel_library(shared_kernels SOURCES ${sources} TARGET executorch REGISTRATION named
  LIB_NAME shared)
target_include_directories(shared_kernels PUBLIC ${OPSCAN_SOURCE_DIR}/examples/include)
add_subdirectory(${OPSCAN_SOURCE_DIR}/test/et_runtime et_runtime)
target_link_libraries(shared_kernels PUBLIC opscan_et_stand_in)
")
run(out ${CMAKE_COMMAND} -S ${src} -B ${build} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${OPSCAN_PREFIX})
run(out ${CMAKE_COMMAND} --build ${build} --target shared_kernels)
set(step "first build")
expect_contains("${out}" "opscan: precompiling the #include lines the sources of kernel library 'shared' share" "${step}")
set(gen ${build}/shared_kernels.opscan)
file(STRINGS ${gen}/shared-pch.txt made REGEX "\\.pch ")
list(LENGTH made count)
if(NOT count EQUAL 1 OR NOT made MATCHES "\\.pch 7 <functional> <map> <vector> <opscan/annotations.h> <opscan_examples/executorch_types.h>$")
  message(FATAL_ERROR "expected one header for the 7 sources, got: ${made}")
endif()
string(REGEX REPLACE " .*" "" pch "${made}")
expect_exists(${pch})

# Each fragment is what a scan without any precompiled header writes.
file(GLOB flags_file ${gen}/flags-*.txt)
foreach(i RANGE 1 7)
  # From the build directory, as the build runs it: paths are shown alike.
  run(out ${CMAKE_COMMAND} -E chdir ${build} ${OPSCAN_PREFIX}/bin/opscan scan
      ${src}/kernels/k${i}.cpp -o ${WORK_DIR}/k${i}.ir.json --flags-file ${flags_file})
  file(READ ${WORK_DIR}/k${i}.ir.json expected)
  file(READ ${gen}/scan/${i}-k${i}.cpp.ir.json built)
  if(NOT built STREQUAL expected)
    message(FATAL_ERROR "k${i}.cpp: the build's fragment differs from a plain scan's")
  endif()
endforeach()

run(out ${CMAKE_COMMAND} --build ${build} --target shared_kernels)
expect_no_match("${out}" "opscan:|Building|Linking" "second build")

file(APPEND ${src}/kernels/k3.cpp "// edited\n")
run(out ${CMAKE_COMMAND} --build ${build} --target shared_kernels)
set(step "after editing k3.cpp")
expect_contains("${out}" "opscan: scanning k3.cpp" "${step}")
expect_no_match("${out}" "scanning k[124567].cpp" "${step}")
run(out ${CMAKE_COMMAND} --build ${build} --target shared_kernels)
expect_no_match("${out}" "opscan:|Building|Linking" "build after that")

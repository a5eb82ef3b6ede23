# The edits a developer makes to a kernel library built with Ninja, and
# exactly the commands each runs, read from Ninja's log (.ninja_log). Six
# sources; k1 to k5 start with the same #include lines, among them
# <edit/shared.h>; k2 includes "k2_helper.h" after them; k6 starts with
# others.
#   - a body edit (lines kept) scans that source, and the generation rewrites
#     nothing that is compiled;
#   - an edit that moves lines compiles the small table of the kernels'
#     sources (KernelSources.cpp), not the registration;
#   - neither runs the step that precompiles the shared #include lines, which
#     an edit of a source's leading #include lines, or of a header they
#     reach, does run;
#   - a header edit scans and compiles the sources that include it, no other.
cmake_policy(VERSION 3.25) # if(IN_LIST) in ninja_build
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(src ${WORK_DIR}/src)
set(build ${WORK_DIR}/build)
set(prefix "#include <functional>
#include <map>
#include <vector>
#include <opscan/annotations.h>
#include <edit/shared.h>
#include <opscan_examples/executorch_types.h>
")
set(body [[
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;

namespace edit {

OPSCAN_KERNEL("edit::kNUMBER.out")
Tensor& kNUMBER_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx, (void)self;
  const int factor = kShared + 1;
  (void)factor;
  return out;
}

} // namespace edit
]])
foreach(i 1 2 3 4 5 6)
  string(REPLACE "NUMBER" "${i}" kernel "${body}")
  if(i EQUAL 2)
    string(REPLACE "namespace edit {" "#include \"k2_helper.h\"\nnamespace edit {" kernel
           "${kernel}")
  endif()
  if(i EQUAL 6)
    file(WRITE ${src}/kernels/k${i}.cpp "#include <set>\n#include <opscan/annotations.h>\n"
               "#include <opscan_examples/executorch_types.h>\n"
               "namespace edit {\nconstexpr int kShared = 6;\n}\n${kernel}")
  else()
    file(WRITE ${src}/kernels/k${i}.cpp "${prefix}${kernel}")
  endif()
endforeach()
file(WRITE ${src}/include/edit/shared.h
     "#pragma once\nnamespace edit {\nconstexpr int kShared = 2;\n}\n")
file(WRITE ${src}/kernels/k2_helper.h "#pragma once\nnamespace edit {\nconstexpr int kHelper = 1;\n}\n")
file(WRITE ${src}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(edit_loop CXX)
find_package(opscan CONFIG REQUIRED)
opscan_add_kernel_library(edit_kernels
  SOURCES kernels/k1.cpp kernels/k2.cpp kernels/k3.cpp kernels/k4.cpp kernels/k5.cpp kernels/k6.cpp
  TARGET executorch REGISTRATION named LIB_NAME edit STATIC)
target_include_directories(edit_kernels PUBLIC ${OPSCAN_SOURCE_DIR}/examples/include include)
add_subdirectory(${OPSCAN_SOURCE_DIR}/test/et_runtime et_runtime)
target_link_libraries(edit_kernels PUBLIC opscan_et_stand_in)
")
run(out ${CMAKE_COMMAND} -S ${src} -B ${build} -G Ninja -DCMAKE_PREFIX_PATH=${OPSCAN_PREFIX})
set(gen ${build}/edit_kernels.opscan/include/edit)
set(lib libedit_kernels.a)

ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "first build" list-includes shared-pch "scan k1.cpp" "scan k2.cpp"
           "scan k3.cpp" "scan k4.cpp" "scan k5.cpp" "scan k6.cpp" generate "compile k1.cpp"
           "compile k2.cpp" "compile k3.cpp" "compile k4.cpp" "compile k5.cpp" "compile k6.cpp"
           "compile RegisterKernels.cpp" "compile KernelSources.cpp" ${lib}
           "compile operator_registry.cpp" et_runtime/libopscan_et_stand_in.a)
# The shared #include lines were precompiled: the steps below are about
# something.
file(STRINGS ${build}/edit_kernels.opscan/shared-pch.txt made REGEX "\\.pch ")
if(NOT made MATCHES "\\.pch 5 <functional> <map> <vector>")
  message(FATAL_ERROR "expected one header for k1 to k5, got: ${made}")
endif()
ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "no change")

# The generated files are kept as they were, but those named.
set(generated RegisterKernels.h RegisterKernels.cpp KernelSources.cpp NativeFunctions.h Functions.h
    selected_operators.yaml kernel_count/executorch/runtime/kernel/selected_max_kernel_num.h)
file(COPY ${gen}/ DESTINATION ${WORK_DIR}/before)
function(expect_kept what)
  foreach(file IN LISTS generated)
    if(NOT file IN_LIST ARGN)
      execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/before/${file}
                              ${gen}/${file} RESULT_VARIABLE differs)
      if(differs)
        message(FATAL_ERROR "${what}: ${file} changed")
      endif()
    endif()
  endforeach()
endfunction()

# A body edit: the same lines.
file(READ ${src}/kernels/k1.cpp text)
string(REPLACE "kShared + 1" "kShared + 10" text "${text}")
file(WRITE ${src}/kernels/k1.cpp "${text}")
ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "after a body edit of k1.cpp" list-includes "scan k1.cpp" generate
           "compile k1.cpp" ${lib})
expect_kept("after a body edit of k1.cpp")

# A comment line at the top of k3.cpp: its kernel's line moves.
file(READ ${src}/kernels/k3.cpp text)
file(WRITE ${src}/kernels/k3.cpp "// A comment that moves every line.\n${text}")
ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "after a line moved in k3.cpp" list-includes "scan k3.cpp" generate
           "compile k3.cpp" "compile KernelSources.cpp" ${lib})
file(READ ${gen}/KernelSources.cpp sources)
expect_contains("${sources}" "k3.cpp:14\"," "KernelSources.cpp") # line 13 before
expect_kept("after a line moved in k3.cpp" KernelSources.cpp)

# A header only k2.cpp includes, after its leading #include lines.
file(WRITE ${src}/kernels/k2_helper.h "#pragma once\nnamespace edit {\nconstexpr int kHelper = 2;\n}\n")
ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "after editing k2_helper.h" "scan k2.cpp" generate "compile k2.cpp" ${lib})

# A header the shared #include lines reach: the precompiled header is made
# again, and the sources that include it are scanned and compiled again.
file(WRITE ${src}/include/edit/shared.h "#pragma once\nnamespace edit {\nconstexpr int kShared = 3;\n}\n")
ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "after editing edit/shared.h" shared-pch "scan k1.cpp" "scan k2.cpp"
           "scan k3.cpp" "scan k4.cpp" "scan k5.cpp" generate "compile k1.cpp" "compile k2.cpp"
           "compile k3.cpp" "compile k4.cpp" "compile k5.cpp" ${lib})

# Another leading #include line in k6.cpp (the lines kept).
file(READ ${src}/kernels/k6.cpp text)
string(REPLACE "#include <set>" "#include <list>" text "${text}")
file(WRITE ${src}/kernels/k6.cpp "${text}")
ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "after changing an #include line of k6.cpp" list-includes shared-pch
           "scan k6.cpp" generate "compile k6.cpp" ${lib})

ninja_build(${build} ran --target edit_kernels)
expect_ran("${ran}" "build after that")

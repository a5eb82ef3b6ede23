# The executorch-aot target on the current libtorch: the ExecuTorch kernels
# of test/e2e/aot/aot_ops.cpp, scanned on the host in ExecuTorch's portable
# mode (as the executorch target scans them in test/e2e), generated for
# PyTorch's dispatcher, and compiled in the chroot in ExecuTorch's ATen mode
# (-DUSE_ATEN_LIB=1) with libtorch; aot_test.cpp calls them through
# c10::Dispatcher and compares with the values test/e2e/aot/aot_ops_test.cpp
# gets through ExecuTorch's registry. Included by CMakeLists.txt, which
# defines `generated`, `scan_flags` and opscan_torch_current_test().
#
# ExecuTorch's headers: the checkout's (OPSCAN_EXECUTORCH_SOURCE_DIR) when
# given, else the stand-in's (test/et_runtime/include), whose exec_aten.h has
# an ATen mode of its own. Either way no ExecuTorch source is compiled: what
# the kernels and the wrappers use of the runtime (the context, Error) is in
# headers.
set(aot_source "${PROJECT_SOURCE_DIR}/test/e2e/aot/aot_ops.cpp")
if(OPSCAN_EXECUTORCH_SOURCE_DIR)
  # <executorch/runtime/...>: a copy of the checkout's runtime (small), which
  # the test copies into the chroot (a link would lead nowhere there). The
  # portable mode's scan reads ExecuTorch's own copy of c10's headers; the
  # ATen mode compiles with libtorch's.
  set(aot_et_include "${CMAKE_CURRENT_BINARY_DIR}/et-include")
  file(REMOVE_RECURSE "${aot_et_include}")
  file(COPY "${OPSCAN_EXECUTORCH_SOURCE_DIR}/runtime" DESTINATION "${aot_et_include}/executorch"
       PATTERN test EXCLUDE)
  set(aot_scan_flags -isystem ${aot_et_include}/executorch/runtime/core/portable_type/c10
                     -DC10_USING_CUSTOM_GENERATED_MACROS)
  # Its exec_aten.h includes <torch/torch.h> in ATen mode: libtorch's C++ API.
  set(aot_flags "-isystem /usr/include/torch/csrc/api/include")
  set(aot_headers "ExecuTorch's (${OPSCAN_EXECUTORCH_SOURCE_DIR})")
else()
  set(aot_et_include "${PROJECT_SOURCE_DIR}/test/et_runtime/include")
  set(aot_scan_flags)
  set(aot_flags)
  set(aot_headers "the stand-in's")
endif()
message(STATUS "opscan: torch_current.aot against ${aot_headers} ExecuTorch headers")

set(aot_files ${generated}/aot_ops_aot/RegisterKernels.cpp ${generated}/aot_ops_aot/KernelSources.cpp
              ${generated}/aot_ops_aot/RegisterKernels.h ${generated}/aot_ops_aot/NativeFunctions.h)
add_custom_command(OUTPUT ${aot_files}
  COMMAND opscan run ${aot_source} --target executorch-aot --registration named --lib aot_ops_aot
          -o ${generated} -- -std=c++17 -I${PROJECT_SOURCE_DIR}/include -I${aot_et_include}
          ${aot_scan_flags}
  DEPENDS opscan ${aot_source}
  COMMENT "opscan: ExecuTorch kernels for PyTorch's dispatcher (executorch-aot)")
add_custom_target(torch_current_aot_generated ALL DEPENDS ${aot_files})

opscan_torch_current_test(aot
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/aot_test.cpp ${aot_source}
  GENERATED ${generated}/aot_ops_aot/RegisterKernels.cpp ${generated}/aot_ops_aot/KernelSources.cpp
  INCLUDES ${aot_et_include} ${PROJECT_SOURCE_DIR}/test/e2e/aot
  DEFINITIONS USE_ATEN_LIB=1
  FLAGS ${aot_flags})

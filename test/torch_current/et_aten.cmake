# The executorch target in ExecuTorch's ATen mode on the current libtorch:
# the kernels of test/e2e/aot/aot_ops.cpp and kernels/et_aten.cpp, scanned on
# the host with USE_ATEN_LIB=1, generated with --use-aten-lib, and compiled
# in the chroot in ATen mode with an ExecuTorch runtime of that mode;
# et_aten_test.cpp registers them and calls them through its registry.
# Included by CMakeLists.txt after aot.cmake, whose `aot_et_include` and
# `aot_flags` it shares, and which defines `generated`, `scan_flags`,
# `kernels`, `links` and opscan_torch_current_test().
#
# The runtime: ExecuTorch's own (OPSCAN_EXECUTORCH_SOURCE_DIR): its EValue,
# kernel registry and platform layer compiled in ATen mode; else the
# stand-in's (test/et_runtime), whose headers have an ATen mode of their own.
set(et_aten_sources "${PROJECT_SOURCE_DIR}/test/e2e/aot/aot_ops.cpp" "${kernels}/et_aten.cpp")
if(OPSCAN_EXECUTORCH_SOURCE_DIR)
  set(et_aten_runtime)
  foreach(source runtime/core/evalue.cpp runtime/core/tag.cpp
                 runtime/core/exec_aten/util/tensor_shape_to_c_string.cpp
                 runtime/core/exec_aten/util/tensor_util_aten.cpp
                 runtime/kernel/operator_registry.cpp runtime/platform/abort.cpp
                 runtime/platform/log.cpp runtime/platform/platform.cpp
                 runtime/platform/profiler.cpp runtime/platform/runtime.cpp
                 runtime/platform/default/posix.cpp)
    list(APPEND et_aten_runtime "${aot_et_include}/executorch/${source}")
  endforeach()
  # Its exec_aten.h includes <torch/torch.h> in ATen mode.
  set(et_aten_scan_flags -isystem ${links}/torch/csrc/api/include)
else()
  set(et_aten_scan_flags)
  set(et_aten_runtime "${PROJECT_SOURCE_DIR}/test/et_runtime/src/operator_registry.cpp")
endif()
set(et_aten_files ${generated}/et_aten/RegisterKernels.cpp ${generated}/et_aten/KernelSources.cpp
                  ${generated}/et_aten/RegisterKernels.h ${generated}/et_aten/NativeFunctions.h)
add_custom_command(OUTPUT ${et_aten_files}
  COMMAND opscan run ${et_aten_sources} --target executorch --use-aten-lib --registration named
          --lib et_aten -o ${generated} -- ${scan_flags} -DUSE_ATEN_LIB=1 -I${aot_et_include}
          ${et_aten_scan_flags}
  DEPENDS opscan ${et_aten_sources}
  COMMENT "opscan: ExecuTorch kernels in ATen mode (executorch --use-aten-lib)")
add_custom_target(torch_current_et_aten_generated ALL DEPENDS ${et_aten_files})
opscan_torch_current_test(et_aten
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/et_aten_test.cpp ${et_aten_sources} ${et_aten_runtime}
  GENERATED ${generated}/et_aten/RegisterKernels.cpp ${generated}/et_aten/KernelSources.cpp
  INCLUDES ${aot_et_include} ${PROJECT_SOURCE_DIR}/test/e2e/aot
  DEFINITIONS USE_ATEN_LIB=1
  FLAGS ${aot_flags})

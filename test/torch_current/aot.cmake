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
message(STATUS "opscan: torch_current.aot_ops_aot(_static) against ${aot_headers} ExecuTorch headers")

# One library per registration mode, each in a program of its own.
foreach(mode named static)
  set(lib aot_ops_aot)
  set(definitions USE_ATEN_LIB=1)
  if(mode STREQUAL "static")
    set(lib aot_ops_aot_static)
    list(APPEND definitions OPSCAN_AOT_STATIC)
  endif()
  set(files ${generated}/${lib}/RegisterKernels.cpp ${generated}/${lib}/KernelSources.cpp
            ${generated}/${lib}/RegisterKernels.h ${generated}/${lib}/NativeFunctions.h)
  add_custom_command(OUTPUT ${files}
    COMMAND opscan run ${aot_source} --target executorch-aot --registration ${mode} --lib ${lib}
            -o ${generated} -- -std=c++17 -I${PROJECT_SOURCE_DIR}/include -I${aot_et_include}
            ${aot_scan_flags}
    DEPENDS opscan ${aot_source}
    COMMENT "opscan: ExecuTorch kernels for PyTorch's dispatcher (executorch-aot, ${mode})")
  add_custom_target(torch_current_${lib}_generated ALL DEPENDS ${files})
  opscan_torch_current_test(${lib}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/aot_test.cpp ${aot_source}
    GENERATED ${generated}/${lib}/RegisterKernels.cpp ${generated}/${lib}/KernelSources.cpp
    INCLUDES ${aot_et_include} ${PROJECT_SOURCE_DIR}/test/e2e/aot
    DEFINITIONS ${definitions}
    FLAGS ${aot_flags})
endforeach()

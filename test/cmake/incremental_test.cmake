# Incremental builds with GENERATOR (Ninja or Unix Makefiles), asserted on the
# build tool's output: a second build does nothing; a touched header re-scans
# exactly the source that includes it and recompiles no generated code; an
# unrelated file changes nothing; a new kernel regenerates and recompiles the
# registration; a flag change or a new opscan re-scans everything. With
# -DWITH_SCAN_PCH=ON the scans load a precompiled kernels/common.h, and a
# change to it re-precompiles and re-scans.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
# Copies: the test edits the project's files and touches opscan.
file(COPY ${OPSCAN_SOURCE_DIR}/test/cmake/executorch/ DESTINATION ${WORK_DIR}/src)
set(src ${WORK_DIR}/src)
set(build ${WORK_DIR}/build)
set(prefix ${WORK_DIR}/prefix)
run(out ${CMAKE_COMMAND} --install ${OPSCAN_BUILD_DIR} --prefix ${prefix})
set(configure ${CMAKE_COMMAND} -S ${src} -B ${build} -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DOPSCAN_SOURCE_DIR=${OPSCAN_SOURCE_DIR} -DBUILD_PROGRAM=ON
    -DWITH_SCAN_PCH=${WITH_SCAN_PCH})
run(out ${configure})

set(anything "opscan:|Building|Linking")
macro(build step)
  run(out ${CMAKE_COMMAND} --build ${build})
  set(step "${step}")
endmacro()

build("first build")
expect_contains("${out}" "opscan: scanning scale.cpp" "${step}")
expect_contains("${out}" "opscan: scanning reduce.cpp" "${step}")
expect_match("${out}" "Linking CXX executable run_kernels" "${step}")

build("second build")
expect_no_match("${out}" "${anything}" "${step}")

if(WITH_SCAN_PCH)
  expect_exists(${build}/portable_kernels.opscan/scan.pch)
  file(TOUCH ${src}/kernels/common.h)
  build("after touching the precompiled header")
  expect_contains("${out}" "opscan: precompiling common.h" "${step}")
  expect_contains("${out}" "opscan: scanning scale.cpp" "${step}")
  expect_contains("${out}" "opscan: scanning reduce.cpp" "${step}")
  expect_no_match("${out}" "RegisterKernels.cpp.o" "${step}")
  build("build after that")
  expect_no_match("${out}" "${anything}" "${step}")
endif()

file(TOUCH ${src}/kernels/scale.h)
build("after touching scale.h")
expect_contains("${out}" "opscan: scanning scale.cpp" "${step}")
expect_no_match("${out}" "scanning reduce.cpp" "${step}")
expect_contains("${out}" "(0 written, 8 unchanged)" "${step}")
expect_no_match("${out}" "RegisterKernels.cpp.o|reduce.cpp.o" "${step}")

build("build after that")
expect_no_match("${out}" "${anything}" "${step}")

file(TOUCH ${src}/kernels/unrelated.h)
build("after touching a file nothing includes")
expect_no_match("${out}" "${anything}" "${step}")

# A new kernel: the registration changes and is recompiled.
file(READ ${src}/kernels/scale.cpp scale)
string(REPLACE "} // namespace demo_scale" [[
OPSCAN_KERNEL("demo::negate.out")
Tensor& negate_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  (void)ctx, (void)self;
  return out;
}

} // namespace demo_scale]] scale "${scale}")
file(WRITE ${src}/kernels/scale.cpp "${scale}")
build("after adding a kernel")
expect_contains("${out}" "opscan: scanning scale.cpp" "${step}")
expect_no_match("${out}" "scanning reduce.cpp" "${step}")
expect_match("${out}" "Building CXX object [^\n]*RegisterKernels.cpp.o" "${step}")
build("build after that")
expect_no_match("${out}" "${anything}" "${step}")

# Flags: a new compile definition on the target re-scans every source.
run(out ${configure} -DEXTRA_DEFINITION=OPSCAN_TEST_FLAG=1)
build("after a flag change")
expect_contains("${out}" "opscan: scanning scale.cpp" "${step}")
expect_contains("${out}" "opscan: scanning reduce.cpp" "${step}")
build("build after that")
expect_no_match("${out}" "${anything}" "${step}")

# A new opscan: every scan runs again.
file(TOUCH ${prefix}/bin/opscan)
build("after opscan changed")
expect_contains("${out}" "opscan: scanning scale.cpp" "${step}")
expect_contains("${out}" "opscan: scanning reduce.cpp" "${step}")
build("build after that")
expect_no_match("${out}" "${anything}" "${step}")

run(out ${build}/run_kernels)
expect_contains("${out}" "portable kernels registered" "run_kernels")

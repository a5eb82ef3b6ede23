# The example of docs/cmake.md (test/cmake/consumer) against the
# installed opscan package: two named torch kernel libraries in one program,
# both operator sets reachable through PyTorch's dispatcher; then both
# libraries installed to one prefix keep both generated headers.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(consumer)
run(out ${CMAKE_COMMAND} --build ${build})
expect_contains("${out}" "opscan: scanning vision.cpp (kernel library 'vision')" "build")
expect_contains("${out}" "opscan: scanning audio.cpp (kernel library 'audio')" "build")
expect_contains("${out}" "opscan: checking the kernel libraries linked into image_tools (vision, audio)" "build")
run(out ${build}/image_tools)
expect_contains("${out}" "vision and audio operators work" "image_tools")

set(installed ${WORK_DIR}/installed)
run(out ${CMAKE_COMMAND} --install ${build} --prefix ${installed})
foreach(lib vision audio)
  expect_exists(${installed}/include/${lib}/RegisterKernels.h)
  expect_exists(${installed}/include/${lib}/NativeFunctions.h)
endforeach()
file(READ ${installed}/lib/cmake/image_tools/image_tools.cmake exported)
expect_contains("${exported}" "BASE_DIRS \"\${_IMPORT_PREFIX}/include\"" "exported targets")
expect_contains("${exported}" "\${_IMPORT_PREFIX}/include/vision/RegisterKernels.h" "exported targets")
expect_contains("${exported}" "\${_IMPORT_PREFIX}/include/audio/RegisterKernels.h" "exported targets")

# Static registration out of a static archive (test/cmake/static_archive).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)
configure_project(static_archive)
run(out ${CMAKE_COMMAND} --build ${build})
run(out ${build}/links_target)
expect_contains("${out}" "extra_ops::twice is registered" "links_target")
# The control shows the linker does drop what nothing references.
run(out ${build}/links_archive_by_path)
expect_contains("${out}" "extra_ops::twice is not registered" "links_archive_by_path")

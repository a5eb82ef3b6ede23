# Configures the errors project (errors/CMakeLists.txt) against the installed
# opscan package, with one CASE, in WORK_DIR; it never builds it.
#
#   cmake -DOPSCAN_PREFIX=<prefix> -DWORK_DIR=<dir> -DCASE=<case>
#         (-DEXPECT=<regex> | -DEXPECT_SUCCESS=ON) -P configure_error_test.cmake
#
# With EXPECT, configuring must fail with an error raised by the package's
# OpscanKernelLibrary.cmake whose message matches EXPECT. CMake wraps and
# indents error messages (and puts two spaces after a full stop), so the
# output is matched with every run of white space made one space: write EXPECT
# with single spaces. EXPECT should name the target, the option and the
# offending value. With EXPECT_SUCCESS, configuring must succeed, without
# errors or warnings.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

foreach(var OPSCAN_PREFIX WORK_DIR CASE)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "configure_error_test.cmake: -D${var}=... is required")
  endif()
endforeach()
if(DEFINED EXPECT AND EXPECT_SUCCESS)
  message(FATAL_ERROR "configure_error_test.cmake: give -DEXPECT=<regex> or -DEXPECT_SUCCESS=ON, not both")
elseif(NOT EXPECT_SUCCESS AND "${EXPECT}" STREQUAL "")
  message(FATAL_ERROR "configure_error_test.cmake: -DEXPECT=<regex> or -DEXPECT_SUCCESS=ON is required")
endif()

set(build ${WORK_DIR}/build)
# A fresh build directory: no cache from an earlier run.
file(REMOVE_RECURSE ${build})
set(configure ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/errors -B ${build}
  -DCASE=${CASE} -DCMAKE_PREFIX_PATH=${OPSCAN_PREFIX}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)

if(EXPECT_SUCCESS)
  run(output ${configure})
  expect_no_match("${output}" "CMake (Error|Warning)" "configuring case ${CASE}")
else()
  run_failing(output ${configure})
endif()

# The package found must be the one under test, not another installed opscan.
file(STRINGS ${build}/CMakeCache.txt opscan_dir REGEX "^opscan_DIR:")
string(REGEX REPLACE "^[^=]*=" "" opscan_dir "${opscan_dir}")
file(REAL_PATH "${OPSCAN_PREFIX}" prefix)
if(EXISTS "${opscan_dir}")
  file(REAL_PATH "${opscan_dir}" opscan_dir)
endif()
string(FIND "${opscan_dir}/" "${prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "case ${CASE}: found opscan in '${opscan_dir}', not under ${prefix}:\n${output}")
endif()

if(EXPECT_SUCCESS)
  return()
endif()

# The error is the module's own (not, say, add_library's after the module let
# a bad call through), and its message is the expected one.
expect_match("${output}" "CMake Error at [^\n]*/OpscanKernelLibrary\\.cmake:[0-9]+ \\(message\\):"
  "case ${CASE}: an error from OpscanKernelLibrary.cmake")
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${output}")
if(NOT flat MATCHES "${EXPECT}")
  message(FATAL_ERROR "case ${CASE}: expected a message matching '${EXPECT}' "
    "(with white space made single spaces), got:\n${output}")
endif()

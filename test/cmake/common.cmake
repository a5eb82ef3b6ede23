# Shared by the CMake integration tests' scripts (run with cmake -P): running
# commands and checking their output. Every check failure is a FATAL_ERROR
# that shows the output it looked at.

# Runs a command; fails unless it exits 0. Its stdout and stderr, merged, go
# to `out_var`.
function(run out_var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "'${command}' failed (${rc}):\n${output}")
  endif()
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

# Runs a command that must fail; its output goes to `out_var`.
function(run_failing out_var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "'${command}' succeeded but should have failed:\n${output}")
  endif()
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

function(expect_match output regex what)
  if(NOT output MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected output matching '${regex}', got:\n${output}")
  endif()
endfunction()

function(expect_no_match output regex what)
  if(output MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected no output matching '${regex}' (found '${CMAKE_MATCH_0}'), got:\n${output}")
  endif()
endfunction()

function(expect_exists path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "expected ${path} to exist")
  endif()
endfunction()

function(expect_contains output text what)
  string(FIND "${output}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected output containing '${text}', got:\n${output}")
  endif()
endfunction()

# A fresh, empty WORK_DIR for the test.
macro(start_test)
  file(REMOVE_RECURSE "${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}")
endmacro()

# Configures the test project test/cmake/<project> into WORK_DIR/build with
# Ninja, against the installed package; more cache entries in ARGN.
function(configure_project project)
  run(out ${CMAKE_COMMAND} -S ${OPSCAN_SOURCE_DIR}/test/cmake/${project} -B ${WORK_DIR}/build
      -G Ninja -DCMAKE_PREFIX_PATH=${OPSCAN_PREFIX} -DOPSCAN_SOURCE_DIR=${OPSCAN_SOURCE_DIR} ${ARGN})
endfunction()

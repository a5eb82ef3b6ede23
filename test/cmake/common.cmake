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

# Builds `build` (a Ninja build directory) and sets `out_var` to what Ninja
# ran, from its log (.ninja_log): one entry per command, sorted, named by
# what it made: "scan <source>", "shared-pch", "list-includes", "generate",
# "scan-pch" for opscan's steps, "compile <source>" for an object, else the
# output itself (an archive, a program). ARGN: more arguments of the build.
function(ninja_build build out_var)
  # Ninja compacts its log when it starts and finds it too long: compacted
  # now, the entries after its current end are this build's only.
  find_program(NINJA ninja REQUIRED)
  set(offset 0)
  if(EXISTS ${build}/.ninja_log)
    run(out ${NINJA} -C ${build} -t recompact)
    file(READ ${build}/.ninja_log before)
    string(LENGTH "${before}" offset)
  endif()
  run(out ${CMAKE_COMMAND} --build ${build} ${ARGN})
  file(READ ${build}/.ninja_log log OFFSET ${offset})
  string(REPLACE "\n" ";" lines "${log}")
  set(edges)
  set(ran)
  foreach(line IN LISTS lines)
    # start, end, mtime, output, command hash: one command, one start, end
    # and hash for each of its outputs.
    if(NOT line MATCHES "^([0-9]+)\t([0-9]+)\t[0-9]+\t([^\t]+)\t([0-9a-f]+)$")
      continue()
    endif()
    set(edge "${CMAKE_MATCH_1}-${CMAKE_MATCH_2}-${CMAKE_MATCH_4}")
    set(output "${CMAKE_MATCH_3}")
    if(output MATCHES "\\.opscan/scan/[0-9]+-(.+)\\.stamp$")
      set(name "scan ${CMAKE_MATCH_1}")
    elseif(output MATCHES "\\.opscan/shared-pch\\.stamp$")
      set(name "shared-pch")
    elseif(output MATCHES "\\.opscan/shared-pch-includes\\.stamp$")
      set(name "list-includes")
    elseif(output MATCHES "\\.opscan/generate\\.stamp$")
      set(name "generate")
    elseif(output MATCHES "\\.opscan/scan\\.pch\\.stamp$")
      set(name "scan-pch")
    elseif(output MATCHES "([^/]+)\\.o$")
      set(name "compile ${CMAKE_MATCH_1}")
    elseif(output MATCHES "\\.opscan/|^/")
      continue() # another output of an opscan step, or a spelling with the full path
    else()
      set(name "${output}")
    endif()
    if(NOT edge IN_LIST edges)
      list(APPEND edges "${edge}")
      list(APPEND ran "${name}")
    endif()
  endforeach()
  list(SORT ran)
  set(${out_var} "${ran}" PARENT_SCOPE)
endfunction()

# Fails unless `ran` (from ninja_build) is exactly the commands ARGN names.
function(expect_ran ran what)
  set(expected ${ARGN})
  list(SORT expected)
  if(NOT "${ran}" STREQUAL "${expected}")
    list(JOIN ran "\n  " ran)
    list(JOIN expected "\n  " expected)
    message(FATAL_ERROR "${what}: Ninja ran\n  ${ran}\nexpected\n  ${expected}")
  endif()
endfunction()

# Anyone's Release build of opscan (no OPSCAN_WERROR) gets warnings, not
# errors: configuring the source tree with -DCMAKE_BUILD_TYPE=Release leaves
# -Werror out of every compile command, the tests' included (GCC 12's false
# -Wrestrict at -O3 once stopped such a build in a test target). Configure
# only. The control, the same tree with -DOPSCAN_WERROR=ON, shows the check
# sees -Werror where opscan's own builds put it.
#
#   cmake -DOPSCAN_SOURCE_DIR=<src> -DWORK_DIR=<dir> -DCXX_COMPILER=<c++>
#         -P release_no_werror_test.cmake
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()
set(build ${WORK_DIR}/build)

# Sets out_var to the configured tree's compile commands and e2e_var to
# those of the test/e2e targets (compiled with opscan's warning flags), one
# per line; fails if there are none of the latter.
function(compile_commands out_var e2e_var)
  file(READ ${build}/compile_commands.json json)
  string(JSON count LENGTH "${json}")
  set(commands "")
  set(e2e "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON command GET "${json}" ${i} command)
    string(JSON file GET "${json}" ${i} file)
    string(APPEND commands "${command}\n")
    if(file MATCHES "/test/e2e/" AND command MATCHES " -Wall -Wextra")
      string(APPEND e2e "${command}\n")
    endif()
  endforeach()
  if(e2e STREQUAL "")
    message(FATAL_ERROR "no compile command of a test/e2e target with -Wall -Wextra:\n${commands}")
  endif()
  set(${out_var} "${commands}" PARENT_SCOPE)
  set(${e2e_var} "${e2e}" PARENT_SCOPE)
endfunction()

# The environment's flags are the user's, not opscan's defaults.
run(out ${CMAKE_COMMAND} -E env --unset=CXXFLAGS --unset=LDFLAGS
    ${CMAKE_COMMAND} -S ${OPSCAN_SOURCE_DIR} -B ${build} -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
compile_commands(commands e2e)
expect_match("${commands}" " -O3 " "Release compile commands")
expect_no_match("${commands}" "-Werror" "Release compile commands without OPSCAN_WERROR")

run(out ${CMAKE_COMMAND} -E env --unset=CXXFLAGS --unset=LDFLAGS
    ${CMAKE_COMMAND} -S ${OPSCAN_SOURCE_DIR} -B ${build} -DOPSCAN_WERROR=ON)
compile_commands(commands e2e)
expect_match("${e2e}" " -Werror " "test/e2e compile commands with OPSCAN_WERROR=ON")

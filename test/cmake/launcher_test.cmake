# opscan's build steps through a rule launcher (RULE_LAUNCH_CUSTOM), as
# reclient's rewrapper or BuildCache run them: launcher/launcher.sh logs
# each command and runs it with an empty environment. With GENERATOR (Ninja
# or Unix Makefiles):
# - every opscan step (the shared precompiled header, one scan per source,
#   the generation) goes through the launcher;
# - each names on its command line what it reads and writes: its sources or
#   fragments, its flags file (the scan's compiler flags, not the
#   environment), its output, stamp and depfile;
# - the fragments and generated files are the same bytes as a build without
#   the launcher.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()

set(plain ${WORK_DIR}/plain)
set(launched ${WORK_DIR}/launched)
foreach(build IN ITEMS ${plain} ${launched})
  set(options)
  if(build STREQUAL launched)
    set(options -DCMAKE_PROJECT_INCLUDE=${CMAKE_CURRENT_LIST_DIR}/launcher/launch.cmake)
  endif()
  run(out ${CMAKE_COMMAND} -S ${OPSCAN_SOURCE_DIR}/test/cmake/executorch -B ${build}
      -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${OPSCAN_PREFIX} -DOPSCAN_SOURCE_DIR=${OPSCAN_SOURCE_DIR}
      -DBUILD_PROGRAM=ON ${options})
  run(out ${CMAKE_COMMAND} --build ${build} --target run_kernels)
endforeach()

expect_exists(${launched}/launched.log)
file(STRINGS ${launched}/launched.log commands)
set(dir ${launched}/portable_kernels.opscan)
set(scans 0)
set(generates 0)
set(pchs 0)
foreach(command IN LISTS commands)
  if(NOT command MATCHES "/opscan (scan|generate|pch) ")
    continue()
  endif()
  set(step ${CMAKE_MATCH_1})
  math(EXPR ${step}s "${${step}s} + 1")
  expect_match("${command}" " --stamp ${dir}/" "the ${step} step's stamp")
  if(step STREQUAL "scan")
    expect_match("${command}" " -o ${dir}/scan/[^ ]+\\.ir\\.json" "the scan's fragment")
    expect_match("${command}" " --depfile ${dir}/scan/[^ ]+\\.d" "the scan's depfile")
    expect_match("${command}" " --flags-file ${dir}/flags-[^ ]*\\.txt" "the scan's flags")
    expect_match("${command}" " --cache ${dir}/scan-cache" "the scan's cache")
  elseif(step STREQUAL "generate")
    expect_match("${command}" "generate ${dir}/scan/1-[^ ]+\\.ir\\.json ${dir}/scan/2-[^ ]+\\.ir\\.json "
                 "the fragments the generation reads")
    expect_match("${command}" " -o ${dir}/include" "the generation's output directory")
  endif()
endforeach()
if(NOT scans EQUAL 2 OR NOT generates EQUAL 1 OR NOT pchs EQUAL 1)
  message(FATAL_ERROR "through the launcher: ${scans} scans (2 sources), ${generates} generations, "
                      "${pchs} shared PCH steps (1 each expected); its log:\n${commands}")
endif()
file(READ ${dir}/flags-.txt flags)
expect_match("${flags}" "-I[^\n]*/examples/include" "the flags file")

file(GLOB_RECURSE outputs RELATIVE ${plain}/portable_kernels.opscan
     ${plain}/portable_kernels.opscan/scan/*.ir.json ${plain}/portable_kernels.opscan/include/*)
foreach(output IN LISTS outputs)
  file(READ ${plain}/portable_kernels.opscan/${output} without HEX)
  file(READ ${dir}/${output} with HEX)
  if(NOT with STREQUAL without)
    message(FATAL_ERROR "${output} differs with the launcher")
  endif()
endforeach()
list(LENGTH outputs count)
message(STATUS "${GENERATOR}: ${scans} scans, the PCH and the generation launched; ${count} outputs unchanged")

# Outputs that do not depend on where the build runs: one project configured
# in two build directories at different paths (and depths), with Ninja. The
# fragment of each source and every generated file must be the same bytes
# in both, so that a cache shared between build directories (or machines
# with one source path) serves either. The build system's own files
# (depfiles, flags files, stamps) name the build directory and are not
# compared.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
start_test()

set(builds ${WORK_DIR}/one/build ${WORK_DIR}/two/a/much/deeper/build-elsewhere)
foreach(build IN LISTS builds)
  run(out ${CMAKE_COMMAND} -S ${OPSCAN_SOURCE_DIR}/test/cmake/executorch -B ${build} -G Ninja
      -DCMAKE_PREFIX_PATH=${OPSCAN_PREFIX} -DOPSCAN_SOURCE_DIR=${OPSCAN_SOURCE_DIR})
  run(out ${CMAKE_COMMAND} --build ${build} --target portable_kernels.opscan/generate.stamp)
endforeach()

list(GET builds 0 first)
list(GET builds 1 second)
set(dir portable_kernels.opscan)
file(GLOB_RECURSE outputs RELATIVE ${first}/${dir} ${first}/${dir}/scan/*.ir.json
     ${first}/${dir}/include/*)
list(LENGTH outputs count)
if(count LESS 8)
  message(FATAL_ERROR "only ${count} fragments and generated files under ${first}/${dir}: ${outputs}")
endif()
foreach(output IN LISTS outputs)
  file(READ ${first}/${dir}/${output} one HEX)
  if(NOT EXISTS ${second}/${dir}/${output})
    message(FATAL_ERROR "${output}: in ${first} but not in ${second}")
  endif()
  file(READ ${second}/${dir}/${output} two HEX)
  if(NOT one STREQUAL two)
    message(FATAL_ERROR "${output} differs between ${first} and ${second}")
  endif()
endforeach()
message(STATUS "${count} fragments and generated files, byte-identical in both build directories")

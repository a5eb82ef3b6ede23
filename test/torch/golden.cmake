# Runs `opscan run` on SOURCE for the torch target in MODE and compares the
# generated C++ files with GOLDEN_DIR; with OPSCAN_UPDATE_GOLDEN set in the
# environment it rewrites them instead.
set(out ${WORK_DIR}/golden-${MODE})
file(REMOVE_RECURSE ${out})
execute_process(COMMAND ${OPSCAN} run ${SOURCE} --target torch --registration ${MODE} --lib ${LIB}
                        -o ${out} -- -std=c++17 -I${INCLUDE_DIR}
                WORKING_DIRECTORY ${REPO} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "opscan failed: ${status}")
endif()
foreach(file RegisterKernels.h RegisterKernels.cpp KernelSources.cpp NativeFunctions.h)
  if(DEFINED ENV{OPSCAN_UPDATE_GOLDEN})
    file(MAKE_DIRECTORY ${GOLDEN_DIR})
    file(COPY_FILE ${out}/${LIB}/${file} ${GOLDEN_DIR}/${file})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${out}/${LIB}/${file} ${GOLDEN_DIR}/${file}
                  RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "${out}/${LIB}/${file} differs from ${GOLDEN_DIR}/${file} "
                        "(refresh: OPSCAN_UPDATE_GOLDEN=1)")
  endif()
endforeach()

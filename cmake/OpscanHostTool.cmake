# opscan as part of another project (add_subdirectory, FetchContent): the
# tool is built for this machine, in a build tree of its own, while the
# project configures. opscan_add_kernel_library() asks it, at configure
# time, which files a library's generation writes (--list-outputs); and a
# project cross-compiling its kernel libraries still runs a tool built for
# the machine that builds them.
#
# Defines the imported executable opscan::opscan, and the target
# opscan_host_tool, which brings that build up to date at build time (so a
# change to opscan's sources reaches the kernel libraries).

set(_opscan_host_dir "${CMAKE_CURRENT_BINARY_DIR}/host")
set(_opscan_host_exe "${_opscan_host_dir}/tool/opscan")
message(STATUS "opscan: building the opscan tool for this machine in ${_opscan_host_dir}")
# The host's compilers, not a cross-compiling toolchain's; the settings that
# find opscan's own dependencies are passed on.
set(OPSCAN_HOST_BUILD_TYPE Release CACHE STRING
    "Build type of the opscan tool built for this machine (Release; None: unoptimised, quickest to build)")
set(_opscan_host_args -S "${PROJECT_SOURCE_DIR}" -B "${_opscan_host_dir}" -G "${CMAKE_GENERATOR}"
  -DCMAKE_BUILD_TYPE=${OPSCAN_HOST_BUILD_TYPE} -DOPSCAN_BUILD_TESTS=OFF -DOPSCAN_WERROR=OFF)
foreach(_var OPSCAN_LLVM_VERSION OPSCAN_LLVM_CONFIG CMAKE_PREFIX_PATH)
  if(DEFINED ${_var} AND NOT "${${_var}}" STREQUAL "")
    list(APPEND _opscan_host_args "-D${_var}=${${_var}}")
  endif()
endforeach()
execute_process(COMMAND "${CMAKE_COMMAND}" ${_opscan_host_args}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "opscan: configuring the opscan tool failed:\n${_out}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${_opscan_host_dir}" --target opscan
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "opscan: building the opscan tool failed:\n${_out}")
endif()

add_executable(opscan::opscan IMPORTED GLOBAL)
set_target_properties(opscan::opscan PROPERTIES IMPORTED_LOCATION "${_opscan_host_exe}")
# Kept up to date at build time; a no-op when nothing changed.
add_custom_target(opscan_host_tool
  COMMAND "${CMAKE_COMMAND}" --build "${_opscan_host_dir}" --target opscan
  BYPRODUCTS "${_opscan_host_exe}"
  COMMENT "opscan: bringing the opscan tool up to date"
  VERBATIM)

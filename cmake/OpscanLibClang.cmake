# Locates libclang (C API).
#   OPSCAN_LLVM_VERSION  major version to use, e.g. 15 (default: 14 when
#                        installed, Debian 12's default, else the newest found)
#   OPSCAN_LLVM_CONFIG   an llvm-config to ask instead (any install layout)
# Defines the imported target opscan::libclang, OPSCAN_LLVM_LIBDIR, and
# OPSCAN_CLANG_RESOURCE_DIR: the resource directory of the same clang
# (built-in headers such as stddef.h), which libclang needs at run time.

set(OPSCAN_LLVM_VERSION "" CACHE STRING "Major version of the libclang to use (empty: 14, else newest)")
set(OPSCAN_LLVM_CONFIG "" CACHE FILEPATH "llvm-config of the libclang to use (overrides the version)")

if(OPSCAN_LLVM_CONFIG)
  execute_process(COMMAND ${OPSCAN_LLVM_CONFIG} --prefix OUTPUT_VARIABLE _llvm_prefix
    OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
else()
  # Debian installs each LLVM under /usr/lib/llvm-<major>.
  set(_versions ${OPSCAN_LLVM_VERSION})
  if(NOT _versions)
    set(_versions 14 19 18 17 16 15)
  endif()
  foreach(_v ${_versions})
    if(EXISTS /usr/lib/llvm-${_v}/include/clang-c/Index.h)
      set(_llvm_prefix /usr/lib/llvm-${_v})
      break()
    endif()
  endforeach()
  if(NOT _llvm_prefix)
    message(FATAL_ERROR "libclang ${OPSCAN_LLVM_VERSION} not found under /usr/lib/llvm-*: install "
      "libclang-dev (Debian), or set OPSCAN_LLVM_CONFIG to an llvm-config")
  endif()
endif()

set(OPSCAN_LLVM_LIBDIR ${_llvm_prefix}/lib)
find_library(OPSCAN_LIBCLANG NAMES clang libclang PATHS ${OPSCAN_LLVM_LIBDIR} NO_DEFAULT_PATH)
if(NOT OPSCAN_LIBCLANG OR NOT EXISTS ${_llvm_prefix}/include/clang-c/Index.h)
  message(FATAL_ERROR "libclang not found in ${_llvm_prefix}: install its -dev package")
endif()

# The resource directory: <libdir>/clang/<version> (14, 15: full version;
# newer: major only). Its name is the version we report.
file(GLOB _resource_dirs LIST_DIRECTORIES true ${OPSCAN_LLVM_LIBDIR}/clang/*)
foreach(_candidate ${_resource_dirs})
  if(EXISTS ${_candidate}/include/stddef.h)
    set(OPSCAN_CLANG_RESOURCE_DIR ${_candidate})
    get_filename_component(OPSCAN_LLVM_FOUND_VERSION ${_candidate} NAME)
  endif()
endforeach()
if(NOT OPSCAN_CLANG_RESOURCE_DIR)
  message(FATAL_ERROR "clang resource directory (with include/stddef.h) not found under "
    "${OPSCAN_LLVM_LIBDIR}/clang: install libclang-common-<version>-dev")
endif()

add_library(opscan::libclang UNKNOWN IMPORTED)
set_target_properties(opscan::libclang PROPERTIES
  IMPORTED_LOCATION ${OPSCAN_LIBCLANG}
  INTERFACE_INCLUDE_DIRECTORIES ${_llvm_prefix}/include
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES ${_llvm_prefix}/include)
message(STATUS "opscan: libclang ${OPSCAN_LLVM_FOUND_VERSION} (${OPSCAN_LIBCLANG}), "
  "resource dir ${OPSCAN_CLANG_RESOURCE_DIR}")

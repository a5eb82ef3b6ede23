# Locates libclang (C API) through llvm-config.
#   OPSCAN_LLVM_CONFIG   path of the llvm-config to use (default: newest of
#                        llvm-config-16/15/14, then llvm-config)
# Defines the imported target opscan::libclang and OPSCAN_CLANG_RESOURCE_DIR,
# the resource directory of the same clang (built-in headers such as stddef.h).

if(NOT OPSCAN_LLVM_CONFIG)
  find_program(OPSCAN_LLVM_CONFIG NAMES llvm-config-16 llvm-config-15 llvm-config-14 llvm-config
    DOC "llvm-config of the libclang opscan links")
endif()
if(NOT OPSCAN_LLVM_CONFIG)
  message(FATAL_ERROR "llvm-config not found: install libclang-dev (Debian) or set OPSCAN_LLVM_CONFIG")
endif()

function(_opscan_llvm_config out flag)
  execute_process(COMMAND ${OPSCAN_LLVM_CONFIG} ${flag} OUTPUT_VARIABLE value
    OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set(${out} "${value}" PARENT_SCOPE)
endfunction()
_opscan_llvm_config(OPSCAN_LLVM_VERSION --version)
_opscan_llvm_config(OPSCAN_LLVM_LIBDIR --libdir)
set(_llvm_libdir ${OPSCAN_LLVM_LIBDIR})
_opscan_llvm_config(_llvm_includedir --includedir)

find_library(OPSCAN_LIBCLANG NAMES clang libclang PATHS ${_llvm_libdir} NO_DEFAULT_PATH)
if(NOT OPSCAN_LIBCLANG OR NOT EXISTS ${_llvm_includedir}/clang-c/Index.h)
  string(REGEX MATCH "^[0-9]+" _major ${OPSCAN_LLVM_VERSION})
  message(FATAL_ERROR "libclang ${OPSCAN_LLVM_VERSION} not found in ${_llvm_libdir}: "
    "install libclang-${_major}-dev")
endif()

# The resource directory sits next to the library: <libdir>/clang/<version>.
# Newer LLVMs use only the major version as the directory name.
string(REGEX MATCH "^[0-9]+" _major ${OPSCAN_LLVM_VERSION})
foreach(_candidate ${_llvm_libdir}/clang/${OPSCAN_LLVM_VERSION} ${_llvm_libdir}/clang/${_major})
  if(EXISTS ${_candidate}/include/stddef.h)
    set(OPSCAN_CLANG_RESOURCE_DIR ${_candidate})
    break()
  endif()
endforeach()
if(NOT OPSCAN_CLANG_RESOURCE_DIR)
  message(FATAL_ERROR "clang resource directory (with include/stddef.h) not found under "
    "${_llvm_libdir}/clang: install libclang-common-${_major}-dev")
endif()

add_library(opscan::libclang UNKNOWN IMPORTED)
set_target_properties(opscan::libclang PROPERTIES
  IMPORTED_LOCATION ${OPSCAN_LIBCLANG}
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES ${_llvm_includedir}
  INTERFACE_INCLUDE_DIRECTORIES ${_llvm_includedir})
message(STATUS "opscan: libclang ${OPSCAN_LLVM_VERSION} (${OPSCAN_LIBCLANG}), resource dir ${OPSCAN_CLANG_RESOURCE_DIR}")

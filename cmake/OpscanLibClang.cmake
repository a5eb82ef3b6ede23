# Locates libclang (C API).
#   OPSCAN_LLVM_VERSION  major version to use, e.g. 15 (default: 14 when
#                        installed, Debian 12's default, else the newest found)
#   OPSCAN_LLVM_CONFIG   an llvm-config to ask instead (any install layout)
# Defines opscan_libclang_headers, OPSCAN_LIBCLANG_RUNTIME (the library to
# load), OPSCAN_LIBCLANG_TRAMPOLINES (see below), OPSCAN_LLVM_LIBDIR, and
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

# What opscan's code includes: libclang's headers (system, so that their
# warnings are not ours).
add_library(opscan_libclang_headers INTERFACE IMPORTED)
set_target_properties(opscan_libclang_headers PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES ${_llvm_prefix}/include
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES ${_llvm_prefix}/include)

# libclang is loaded when a file must be parsed, not when opscan starts (the
# dynamic loader spends about 80 ms relocating libclang and LLVM, which a
# no-change run, generate, check, diff and report never call). The library
# loaded is the runtime one, by the absolute path found here (the file of
# its soname, which the linker would have recorded): no LD_LIBRARY_PATH can
# substitute another. lib/scan's opscan::libclang
# defines every function libclang exports as a jump through a table that
# lib/scan/libclang_loader.cpp fills on first use. Elsewhere than Linux on
# x86-64, or with OPSCAN_LIBCLANG_LAZY off, opscan links libclang as usual.
option(OPSCAN_LIBCLANG_LAZY "Load libclang only when a file must be parsed (Linux, x86-64)" ON)
set(OPSCAN_LIBCLANG_RUNTIME ${OPSCAN_LIBCLANG})
if(CMAKE_OBJDUMP)
  execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${OPSCAN_LIBCLANG} OUTPUT_VARIABLE _dynamic
    RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _dynamic MATCHES "SONAME +([^\n]+)")
    string(STRIP "${CMAKE_MATCH_1}" _soname)
    # Beside the link the linker was given, or beside the file it names.
    get_filename_component(_dir ${OPSCAN_LIBCLANG} DIRECTORY)
    get_filename_component(_real_dir ${OPSCAN_LIBCLANG} REALPATH)
    get_filename_component(_real_dir ${_real_dir} DIRECTORY)
    foreach(_candidate ${_dir}/${_soname} ${_real_dir}/${_soname})
      if(EXISTS ${_candidate})
        set(OPSCAN_LIBCLANG_RUNTIME ${_candidate})
        break()
      endif()
    endforeach()
  endif()
endif()
set(OPSCAN_LIBCLANG_TRAMPOLINES "")
if(OPSCAN_LIBCLANG_LAZY AND CMAKE_SYSTEM_NAME STREQUAL "Linux"
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_NM)
  execute_process(COMMAND ${CMAKE_NM} -D --defined-only ${OPSCAN_LIBCLANG_RUNTIME}
    OUTPUT_VARIABLE _exports RESULT_VARIABLE _rc ERROR_QUIET)
  string(REGEX MATCHALL "[0-9a-f]+ T clang_[A-Za-z0-9_]+" _exports "${_exports}")
  list(TRANSFORM _exports REPLACE "^[0-9a-f]+ T " "")
  list(REMOVE_DUPLICATES _exports)
  list(SORT _exports)
  list(LENGTH _exports _count)
  if(_rc EQUAL 0 AND _count GREATER 0)
    set(OPSCAN_LIBCLANG_TRAMPOLINES ${CMAKE_BINARY_DIR}/generated/libclang_trampolines.cpp)
    # Each function: `jmp *table[i]`. Until libclang is loaded, table[i] is
    # a stub that passes i (in r11, which no call uses for an argument) to
    # opscan_libclang_lazy (libclang_loader.cpp). endbr64: each is the
    # target of an indirect jump or call (a no-op without CET).
    set(_names "")
    set(_jumps "")
    set(_stubs "")
    set(_table "")
    set(_i 0)
    foreach(_name ${_exports})
      math(EXPR _offset "${_i} * 8")
      string(APPEND _names "    \"${_name}\",\n")
      string(APPEND _jumps "  .globl ${_name}
  .hidden ${_name}
  .type ${_name}, @function
"
        "  .p2align 3
${_name}:
  jmp *opscan_libclang_table+${_offset}(%rip)
"
        "  .size ${_name}, .-${_name}
")
      string(APPEND _stubs ".Lopscan_libclang_stub_${_i}:
  movl $${_i}, %r11d
"
        "  jmp opscan_libclang_lazy
")
      string(APPEND _table "  .quad .Lopscan_libclang_stub_${_i}
")
      math(EXPR _i "${_i} + 1")
    endforeach()
    file(WRITE ${OPSCAN_LIBCLANG_TRAMPOLINES}.new
      "// Generated by cmake/OpscanLibClang.cmake from the functions that\n"
      "// ${OPSCAN_LIBCLANG_RUNTIME} exports: do not edit.\n"
      "#include <cstddef>\n\n"
      "extern \"C\" {\n"
      "extern const char* const opscan_libclang_names[];\n"
      "extern const std::size_t opscan_libclang_count;\n"
      "const char* const opscan_libclang_names[] = {\n${_names}};\n"
      "const std::size_t opscan_libclang_count = ${_count};\n"
      "}\n\n"
      "__asm__(R\"(\n  .text\n${_jumps}${_stubs}"
      "  .data\n  .p2align 3\n  .globl opscan_libclang_table\n  .hidden opscan_libclang_table\n"
      "  .type opscan_libclang_table, @object\nopscan_libclang_table:\n${_table}"
      "  .size opscan_libclang_table, .-opscan_libclang_table\n  .text\n)\");\n")
    # Rewritten only when it changes: a reconfigure does not rebuild it.
    file(COPY_FILE ${OPSCAN_LIBCLANG_TRAMPOLINES}.new ${OPSCAN_LIBCLANG_TRAMPOLINES} ONLY_IF_DIFFERENT)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${OPSCAN_LIBCLANG_RUNTIME})
  endif()
endif()
if(OPSCAN_LIBCLANG_TRAMPOLINES)
  set(_how "loaded when first needed")
else()
  set(_how "linked")
endif()
message(STATUS "opscan: libclang ${OPSCAN_LLVM_FOUND_VERSION} (${OPSCAN_LIBCLANG_RUNTIME}, ${_how}), "
  "resource dir ${OPSCAN_CLANG_RESOURCE_DIR}")

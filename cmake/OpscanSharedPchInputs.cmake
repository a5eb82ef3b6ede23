# What the step that precompiles the #include lines several kernel sources
# share (opscan pch --shared, in OpscanKernelLibrary.cmake) depends on in the
# sources: their leading #include lines only. Run by the build (cmake -P), so
# that an edit below a source's #include lines does not run that step again.
#
#   -DMODE=includes -DSOURCES=<file> -DOUTPUT=<file>
#     SOURCES lists the library's sources, one a line. Writes to OUTPUT each
#     source and the #include lines it starts with, as opscan reads them
#     (leading_includes in lib/scan/auto_pch.cpp: after blank lines and
#     comments, each #include <name> or "name" alone on its line, up to the
#     first other line; a line continuation, a '?' or a byte-order mark ends
#     them). OUTPUT is rewritten only when that changes: the build restats it.
#   -DMODE=depfile -DSOURCES=<file> -DDEPFILE=<file>
#     Removes the sources from the step's depfile (opscan lists every file it
#     read): the step depends on them through the OUTPUT above instead.
cmake_policy(VERSION 3.25)

# The sources, as the depfile spells them (opscan writes real paths, escaped).
function(_opscan_read_sources out)
  file(STRINGS "${SOURCES}" sources)
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# The leading #include lines of `text`, space-separated.
function(_opscan_leading_includes text out)
  set(found "")
  string(ASCII 239 187 191 byte_order_mark)
  string(FIND "${text}" "${byte_order_mark}" at)
  if(at EQUAL 0)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  # Lines as a list. A line continuation ends the #include lines as a '?'
  # does (it becomes one: its backslash would escape the list's ';').
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\\\n" "\\?\n" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(in_comment FALSE)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "\r$" "" line "${line}")
    if(line MATCHES "\\\\$" OR line MATCHES "\\?")
      break()
    endif()
    # The code of the line, comments taken out (a comment is a blank).
    set(code "")
    while(NOT line STREQUAL "")
      if(in_comment)
        string(FIND "${line}" "*/" close)
        if(close EQUAL -1)
          set(line "")
        else()
          set(in_comment FALSE)
          string(APPEND code " ")
          math(EXPR close "${close} + 2")
          string(SUBSTRING "${line}" ${close} -1 line)
        endif()
      else()
        string(FIND "${line}" "/*" open)
        string(FIND "${line}" "//" slashes)
        if(slashes GREATER_EQUAL 0 AND (open EQUAL -1 OR slashes LESS open))
          string(SUBSTRING "${line}" 0 ${slashes} before)
          string(APPEND code "${before}")
          set(line "")
        elseif(open GREATER_EQUAL 0)
          string(SUBSTRING "${line}" 0 ${open} before)
          string(APPEND code "${before}")
          set(in_comment TRUE)
          math(EXPR open "${open} + 2")
          string(SUBSTRING "${line}" ${open} -1 line)
        else()
          string(APPEND code "${line}")
          set(line "")
        endif()
      endif()
    endwhile()
    if(code MATCHES "^[ \t]*$")
      continue()
    endif()
    if(code MATCHES "^[ \t]*#[ \t]*include[ \t]*(<[^>\n]+>|\"[^\"\n]+\")[ \t]*$")
      string(APPEND found " ${CMAKE_MATCH_1}")
    else()
      break()
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "includes")
  _opscan_read_sources(sources)
  set(content "")
  foreach(source IN LISTS sources)
    # As much as opscan reads of a source (its kMaxSourceBytes is larger).
    file(READ "${source}" text LIMIT 1048576)
    _opscan_leading_includes("${text}" includes)
    string(APPEND content "${source}:${includes}\n")
  endforeach()
  if(EXISTS "${OUTPUT}")
    file(READ "${OUTPUT}" old)
  endif()
  if(NOT "${old}" STREQUAL "${content}")
    file(WRITE "${OUTPUT}" "${content}")
  endif()
elseif(MODE STREQUAL "depfile")
  _opscan_read_sources(sources)
  set(escaped)
  foreach(source IN LISTS sources)
    get_filename_component(source "${source}" REALPATH)
    string(REPLACE "$" "$$" source "${source}")
    string(REGEX REPLACE "([ #])" "\\\\\\1" source "${source}")
    list(APPEND escaped "${source}")
  endforeach()
  # "target: \<newline>  input \<newline>  input<newline>": the line
  # continuations out first (a backslash would escape a list's ';').
  file(READ "${DEPFILE}" text)
  string(REPLACE "\\\n" "\n" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  list(POP_FRONT lines target)
  string(STRIP "${target}" content)
  foreach(line IN LISTS lines)
    string(STRIP "${line}" input)
    if(NOT input STREQUAL "" AND NOT input IN_LIST escaped)
      string(APPEND content " \\\n  ${input}")
    endif()
  endforeach()
  file(WRITE "${DEPFILE}" "${content}\n")
else()
  message(FATAL_ERROR "OpscanSharedPchInputs.cmake: MODE must be includes or depfile")
endif()

cmake_minimum_required(VERSION 3.25)
# docs/architecture.md's map of lib/ is the modules as they are: a row
# "| `lib/<module>` | job | links |" for each directory of lib/ with a
# CMakeLists.txt (lib/<dir>/<module> too: its target is opscan_<module>),
# no row for anything else, and in the last column exactly the opscan
# modules that CMakeLists.txt links (DEPS and PRIVATE_DEPS), as named in
# the first column less "lib/".
file(READ ${OPSCAN_SOURCE_DIR}/docs/architecture.md page)
string(REPLACE ";" "," page "${page}") # a CMake list separator
file(GLOB lists RELATIVE ${OPSCAN_SOURCE_DIR}/lib ${OPSCAN_SOURCE_DIR}/lib/*/CMakeLists.txt
     ${OPSCAN_SOURCE_DIR}/lib/*/*/CMakeLists.txt)
set(modules "")
foreach(list IN LISTS lists)
  get_filename_component(module ${list} DIRECTORY)
  list(APPEND modules ${module})
  get_filename_component(target ${module} NAME)
  set(module_of_${target} ${module})
endforeach()

set(problems "")
set(documented "")
string(REGEX MATCHALL "\n\\| `lib/[^`|]*` \\|[^\n]*" rows "${page}")
foreach(row IN LISTS rows)
  string(REGEX MATCH "`lib/([^`|]*)`" _ "${row}")
  set(module ${CMAKE_MATCH_1})
  list(APPEND documented ${module})
  if(NOT module IN_LIST modules)
    string(APPEND problems "\n  the page names lib/${module}, which is not a module (no lib/${module}/CMakeLists.txt)")
    continue()
  endif()
  # The links the page gives: the backquoted names of the last column.
  string(REGEX REPLACE ".*\\|([^|]*)\\|[ ]*$" "\\1" column "${row}")
  string(REGEX MATCHALL "`[a-z_/]+`" said "${column}")
  string(REPLACE "`" "" said "${said}")
  list(SORT said)
  # The links CMake gives: opscan_<module> in the module's CMakeLists.txt.
  file(READ ${OPSCAN_SOURCE_DIR}/lib/${module}/CMakeLists.txt cmake)
  string(REGEX REPLACE "#[^\n]*" "" cmake "${cmake}")
  string(REGEX MATCHALL "opscan_[a-z_]+" linked "${cmake}")
  set(links "")
  foreach(target IN LISTS linked)
    string(REPLACE "opscan_" "" name ${target})
    set(dep "${module_of_${name}}")
    if(dep AND NOT dep STREQUAL module)
      list(APPEND links ${dep})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES links)
  list(SORT links)
  if(NOT said STREQUAL links)
    string(REPLACE ";" " " said "${said}")
    string(REPLACE ";" " " links "${links}")
    string(APPEND problems "\n  lib/${module}: the page says it links [${said}], "
      "lib/${module}/CMakeLists.txt links [${links}]")
  endif()
endforeach()
foreach(module IN LISTS modules)
  if(NOT module IN_LIST documented)
    string(APPEND problems "\n  lib/${module} is a module the page does not describe")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "docs/architecture.md and lib/ disagree:${problems}")
endif()

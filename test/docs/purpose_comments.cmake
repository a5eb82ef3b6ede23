cmake_minimum_required(VERSION 3.25)
# Every .cpp of lib/ and tool/ starts with a one-line `//` comment that says
# what the file is for, as the headers do.
file(GLOB_RECURSE sources RELATIVE ${OPSCAN_SOURCE_DIR}
     ${OPSCAN_SOURCE_DIR}/lib/*.cpp ${OPSCAN_SOURCE_DIR}/tool/*.cpp)
set(missing "")
foreach(source IN LISTS sources)
  file(READ ${OPSCAN_SOURCE_DIR}/${source} head LIMIT 256)
  if(NOT head MATCHES "^// [^\n]+\n")
    string(APPEND missing "\n  ${source}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "these files do not start with a one-line // comment saying what they are for:${missing}")
endif()

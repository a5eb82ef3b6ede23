cmake_minimum_required(VERSION 3.25)
# README.md is a front door: at most 300 lines; the rest is in docs/.
file(READ ${OPSCAN_SOURCE_DIR}/README.md readme)
string(REGEX MATCHALL "\n" newlines "${readme}")
list(LENGTH newlines count)
if(count GREATER 300)
  message(FATAL_ERROR "README.md has ${count} lines, more than 300: move the detail to a page of docs/")
endif()
message(STATUS "README.md: ${count} lines")

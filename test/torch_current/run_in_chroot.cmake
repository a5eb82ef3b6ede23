# Builds and runs a test program inside the chroot of a current libtorch
# (scripts/libtorch-chroot.sh), whose libraries run only there. Run with
# cmake -P:
#   -DCHROOT=<dir>     the chroot
#   -DINPUTS=<a;b>     files and directories the build reads (absolute): each
#                      is copied into the chroot at its own path, so that the
#                      paths the generated code and the test hold are the same
#                      inside as outside
#   -DWORK_DIR=<dir>   where the program is built (absolute; made afresh)
#   -DBUILD=<command>  the shell command building it, run in WORK_DIR
#   -DRUN=<command>    the shell command running it, run in WORK_DIR
# The program's own output is printed; the script fails when either command
# does.
foreach(var CHROOT INPUTS WORK_DIR BUILD RUN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_in_chroot.cmake: -D${var}= is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${CHROOT}${WORK_DIR}")
file(MAKE_DIRECTORY "${CHROOT}${WORK_DIR}")
# Tests running in parallel share inputs (the generated sources): they are
# copied under a lock, and nothing is removed that another test may be
# compiling. file(COPY) rewrites only the files that differ, so inputs
# unchanged since the last copy are not touched.
file(LOCK "${CHROOT}/.opscan-inputs.lock" GUARD PROCESS TIMEOUT 600)
foreach(input IN LISTS INPUTS)
  get_filename_component(parent "${input}" DIRECTORY)
  file(MAKE_DIRECTORY "${CHROOT}${parent}")
  file(COPY "${input}" DESTINATION "${CHROOT}${parent}")
endforeach()
file(LOCK "${CHROOT}/.opscan-inputs.lock" RELEASE)

foreach(step BUILD RUN)
  execute_process(COMMAND chroot "${CHROOT}" /bin/sh -c "cd '${WORK_DIR}' && ${${step}}"
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "in the chroot ${CHROOT}, in ${WORK_DIR}: '${${step}}' failed (${status})")
  endif()
endforeach()

#!/bin/sh
# A rule launcher as a remote runner would be one: logs the command, one
# line, to the file named by the project (launch.cmake), then runs it with
# an empty environment (a worker's), so that the command itself must say
# everything the step reads and writes.
log=$1
shift
printf '%s\n' "$*" >>"$log"
exec env -i PATH=/usr/bin:/bin "$@"

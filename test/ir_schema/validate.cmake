# The last test of the suite (a ctest fixture's cleanup): every IR the tests
# made -- those opscan wrote in the tests' temporary directories, archived
# there by test/common/files.h, and those the build and the CMake tests
# generated under the build tree -- checked against the IR's JSON Schema by a
# real validator, ajv-cli (installed by scripts/setup.sh with the tests' npm
# packages).
#   cmake -DNODE=node -DAJV=<npm>/node_modules/ajv-cli/dist/index.js
#         -DSCHEMA=<schema> -DARCHIVE=<dir> -DBUILD_TESTS=<build>/test -P validate.cmake
foreach(var NODE AJV SCHEMA ARCHIVE BUILD_TESTS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "validate.cmake: -D${var}= is missing")
  endif()
endforeach()
if(NOT EXISTS "${AJV}")
  message(FATAL_ERROR "ajv-cli is not installed (${AJV}): run scripts/setup.sh")
endif()
file(GLOB archived LIST_DIRECTORIES false "${ARCHIVE}/*.json")
file(GLOB_RECURSE generated LIST_DIRECTORIES false "${BUILD_TESTS}/*ir.json")
set(irs ${archived} ${generated})
list(LENGTH archived archived_count)
list(LENGTH generated generated_count)
message(STATUS "${archived_count} IR files written in tests, ${generated_count} in the build tree")
if(NOT irs)
  return()
endif()
# ajv takes one -d per file; in batches, to keep command lines short.
set(batch)
set(failed FALSE)
list(APPEND irs "") # flushes the last batch
foreach(ir IN LISTS irs)
  if(ir)
    list(APPEND batch -d "${ir}")
    list(LENGTH batch length)
  endif()
  if(batch AND (NOT ir OR length GREATER_EQUAL 400))
    execute_process(COMMAND "${NODE}" "${AJV}" validate --spec=draft2020 --strict=true
                            --errors=text -s "${SCHEMA}" ${batch}
                    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT result EQUAL 0)
      string(REGEX REPLACE "[^\n]* valid\n" "" out "${out}")
      message(SEND_ERROR "ajv found IR files the schema refuses:\n${out}${err}")
      set(failed TRUE)
    elseif(err)
      # Strict mode's complaints about the schema itself come on stderr.
      message(SEND_ERROR "ajv: ${err}")
      set(failed TRUE)
    endif()
    set(batch)
  endif()
endforeach()

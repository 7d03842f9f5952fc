# SPDX-License-Identifier: BSL-1.0
# cmake -P script: compile SOURCE with COMPILER and FLAGS; pass only if compilation fails
# and the diagnostic matches every regular expression in REGEX.
execute_process(COMMAND ${COMPILER} ${FLAGS} ${SOURCE}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(diagnostic "${out}${err}")
if(result EQUAL 0)
  message(FATAL_ERROR "expected ${SOURCE} to fail to compile, but it compiled")
endif()
foreach(re IN LISTS REGEX)
  if(NOT diagnostic MATCHES "${re}")
    message(FATAL_ERROR "diagnostic for ${SOURCE} does not match '${re}':\n${diagnostic}")
  endif()
endforeach()
string(REGEX MATCHALL "\n" lines "${diagnostic}")
list(LENGTH lines n)
message(STATUS "failed as expected with ${n} lines of diagnostic")

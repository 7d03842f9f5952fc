# SPDX-License-Identifier: BSL-1.0
# cmake -P script: runs PROGRAM, which must stop abnormally (abort) and print a line matching REGEX.
# CTest itself counts a signal as a failure whatever the output, hence this wrapper.
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} exited normally; expected an abort")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "${PROGRAM} stopped (${rc}) without a message matching '${REGEX}':\n${out}${err}")
endif()
message(STATUS "${PROGRAM} stopped as expected (${rc})")

# SPDX-License-Identifier: BSL-1.0
# cmake -P script: one device test. Runs a program on a board (ports/cortex-m/qemu-run.sh), then
# has the host check its output (device_check: the constant evaluator's bits and torch's values).
#   -DRUNNER=<qemu-run.sh> -DBOARD=<mps2-an386|mps2-an385> -DPROGRAM=<elf> -DCHECK=<device_check>
#   -DGROUP=<cases group> -DOUTPUT=<file for the device's output>
# Prints "SKIPPED: ..." (the test's SKIP_REGULAR_EXPRESSION) when QEMU is not installed.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${RUNNER}" --board "${BOARD}" "${PROGRAM}"
                OUTPUT_FILE "${OUTPUT}" ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message("${err}")  # qemu-run.sh's "SKIPPED: ..." line
  return()
endif()
if(NOT rc EQUAL 0)
  file(READ "${OUTPUT}" out)
  message(FATAL_ERROR "${PROGRAM} on ${BOARD} failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND "${CHECK}" "${GROUP}" "${OUTPUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${BOARD}:\n${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} on ${BOARD}: its output differs (${OUTPUT})")
endif()

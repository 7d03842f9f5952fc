# SPDX-License-Identifier: BSL-1.0
# device_int8.<b>.footprint: footprint<>'s figures against the linker's (issue #26). Runs the
# device program (qemu-run.sh), reads the plan it prints for the tiny GPT, int8 and float, and
# compares with the symbols of the linked program (arm-none-eabi-nm -S, System V format: size and
# section) and its map (-DMAP=device_int8.map, -fdata-sections: one input section per object):
# .flash is the model object's size in .rodata, .ram - .stack the workspace's in .bss;
# the stack is the painted one, checked on the device (plan >= painted, plan <= 1.10 x painted),
# and again here from what the program prints.
#   cmake -DRUNNER=qemu-run.sh -DBOARD=mps2-an386 -DPROGRAM=device_int8 -DNM=arm-none-eabi-nm \
#         -DMAP=device_int8.map -P check_footprint.cmake
foreach(_v RUNNER BOARD PROGRAM NM MAP)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "check_footprint.cmake: -D${_v}=... is required")
  endif()
endforeach()

execute_process(COMMAND "${RUNNER}" --board "${BOARD}" --icount "${PROGRAM}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                ERROR_VARIABLE _err)
if(_rc EQUAL 77)
  message("SKIPPED: ${_out}${_err}")
  return()
endif()
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} on ${BOARD} failed (${_rc}):\n${_out}${_err}")
endif()

execute_process(COMMAND "${NM}" -S -C --format=sysv "${PROGRAM}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _symbols)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${NM} -S ${PROGRAM} failed (${_rc})")
endif()

file(READ "${MAP}" _map)

# The size (decimal) of the input section .rodata.<mangled> in the linker's map (its name and
# its address and size may be on two lines).
function(map_section mangled out_size)
  string(REGEX MATCH "\\.rodata\\.${mangled}[ \t\r\n]+0x[0-9a-f]+[ \t]+0x([0-9a-f]+)" _m "${_map}")
  if(NOT _m)
    message(FATAL_ERROR "no section .rodata.${mangled} in ${MAP}")
  endif()
  math(EXPR _size "0x${CMAKE_MATCH_1}" OUTPUT_FORMAT DECIMAL)
  set(${out_size} ${_size} PARENT_SCOPE)
endfunction()

# The size (decimal) and section of the symbol named exactly `name`.
function(symbol name out_size out_section)
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" _re "${name}")
  string(REGEX MATCH "\n${_re} *\\|[0-9a-f]+\\| *[A-Za-z] *\\| *OBJECT\\|([0-9a-f]+)\\| *\\|([^\n]*)" _m "\n${_symbols}")
  if(NOT _m)
    message(FATAL_ERROR "no symbol '${name}' in ${PROGRAM}")
  endif()
  math(EXPR _size "0x${CMAKE_MATCH_1}" OUTPUT_FORMAT DECIMAL)
  string(STRIP "${CMAKE_MATCH_2}" _section)
  set(${out_size} ${_size} PARENT_SCOPE)
  set(${out_section} "${_section}" PARENT_SCOPE)
endfunction()

set(_failed FALSE)
foreach(_kind int8 float)
  if(_kind STREQUAL "int8")
    set(_model "quant_gpt_models::q")
    set(_mangled "_ZN16quant_gpt_models1qE")
    set(_ws "(anonymous namespace)::int8_ws")
    set(_label "tiny-gpt int8 ")
  else()
    set(_model "quant_gpt_models::model")
    set(_mangled "_ZN16quant_gpt_models5modelE")
    set(_ws "(anonymous namespace)::float_ws")
    set(_label "tiny-gpt float")
  endif()
  string(REGEX MATCH "${_label} footprint: flash ([0-9]+) \\(sizeof model [0-9]+\\), ram ([0-9]+) \\(workspace [0-9]+ \\+ stack bound ([0-9]+);"
               _m "${_out}")
  if(NOT _m)
    message(FATAL_ERROR "${PROGRAM} printed no footprint line for ${_kind}:\n${_out}")
  endif()
  set(_flash ${CMAKE_MATCH_1})
  set(_ram ${CMAKE_MATCH_2})
  set(_stack ${CMAKE_MATCH_3})
  math(EXPR _plan_ws "${_ram} - ${_stack}")
  string(REGEX MATCH "${_label} stack plan [0-9]+, painted ([0-9]+) " _m "${_out}")
  if(NOT _m)
    message(FATAL_ERROR "${PROGRAM} printed no painted stack for ${_kind}:\n${_out}")
  endif()
  set(_painted ${CMAKE_MATCH_1})

  symbol("${_model}" _model_size _model_section)
  symbol("${_ws}" _ws_size _ws_section)
  map_section("${_mangled}" _map_size)
  set(_verdict "ok")
  if(NOT _model_section MATCHES "^\\.rodata" OR NOT _flash EQUAL _model_size OR NOT _flash EQUAL _map_size)
    set(_verdict "MISMATCH")
  endif()
  if(NOT _ws_section MATCHES "^\\.bss" OR NOT _plan_ws EQUAL _ws_size)
    set(_verdict "MISMATCH")
  endif()
  math(EXPR _stack_x10 "${_stack} * 10")
  math(EXPR _painted_x11 "${_painted} * 11")
  if(_stack LESS _painted OR _stack_x10 GREATER _painted_x11)
    set(_verdict "MISMATCH")
  endif()
  message("${BOARD} ${_kind}: flash plan ${_flash}, ${_model} ${_model_size} bytes in ${_model_section}, "
          "${_map_size} in the map; "
          "workspace plan ${_plan_ws}, ${_ws} ${_ws_size} bytes in ${_ws_section}; "
          "stack plan ${_stack}, painted ${_painted}: ${_verdict}")
  if(NOT _verdict STREQUAL "ok")
    set(_failed TRUE)
  endif()
endforeach()
if(_failed)
  message(FATAL_ERROR "footprint<> disagrees with the linker or the painted stack")
endif()

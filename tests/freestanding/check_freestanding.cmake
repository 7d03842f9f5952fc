# SPDX-License-Identifier: BSL-1.0
# cmake -P script: every public header under ${INCLUDE_ROOT}/static_attention/ must compile on its
# own with -fno-exceptions -fno-rtti, and must not pull in, even indirectly, the hosted-only
# standard headers an embedded model cannot afford (<iostream>, <string>, <vector>, <memory>,
# <fstream>, <sstream>, <map>). The headers are globbed here, at test time, so new ones are
# checked without reconfiguring. The io/ room (io.hpp and io/*.hpp) is exempt, as are the file
# names in EXEMPT and any header whose name has an io/print/fmt/format word in it.
#
#   -DCOMPILER=<c++> -DFLAGS=<list> -DINCLUDE_ROOT=<dir> -DWORK_DIR=<dir> [-DEXEMPT=<list of file names>]
cmake_minimum_required(VERSION 3.25)
set(forbidden iostream string vector memory fstream sstream map)

file(GLOB_RECURSE headers RELATIVE "${INCLUDE_ROOT}/static_attention" "${INCLUDE_ROOT}/static_attention/*.hpp")
list(FILTER headers EXCLUDE REGEX "(^|/)detail/")
list(SORT headers)
if(NOT headers)
  message(FATAL_ERROR "no public headers found under ${INCLUDE_ROOT}/static_attention")
endif()

file(MAKE_DIRECTORY "${WORK_DIR}")
set(checked "")
set(exempted "")
set(failures "")
foreach(header IN LISTS headers)
  get_filename_component(stem "${header}" NAME_WE)
  get_filename_component(file_name "${header}" NAME)
  if(file_name IN_LIST EXEMPT OR header MATCHES "^io(/|\\.hpp$)" OR stem MATCHES "(^|_)(io|print|printing|fmt|format|formatting)(_|$)")
    list(APPEND exempted "${header}")
    continue()
  endif()
  list(APPEND checked "${header}")
  string(MAKE_C_IDENTIFIER "${header}" tu_name)
  set(tu "${WORK_DIR}/${tu_name}.cpp")
  file(WRITE "${tu}" "#include <static_attention/${header}>\n")
  execute_process(COMMAND ${COMPILER} ${FLAGS} -fno-exceptions -fno-rtti -H -fsyntax-only "-I${INCLUDE_ROOT}" "${tu}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    # Drop the -H include listing; keep the diagnostics.
    string(REGEX REPLACE "(^|\n)\\.+ [^\n]*" "" diagnostics "${err}")
    string(APPEND failures "\n${header} does not compile alone with -fno-exceptions -fno-rtti:\n${diagnostics}")
    continue()
  endif()
  # -H prints one line per include, its depth in dots; keep the chain to each one, so that the
  # message says which of our headers brought the forbidden one in.
  string(REPLACE "\n" ";" lines "${err}")
  set(chain "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^(\\.+) (.+)$")
      continue()
    endif()
    string(LENGTH "${CMAKE_MATCH_1}" depth)
    set(path "${CMAKE_MATCH_2}")
    get_filename_component(name "${path}" NAME)
    list(LENGTH chain len)
    while(len GREATER_EQUAL depth)
      math(EXPR last "${len} - 1")
      list(REMOVE_AT chain ${last})
      list(LENGTH chain len)
    endwhile()
    list(APPEND chain "${name}")
    if(name IN_LIST forbidden)
      list(JOIN chain " -> " via)
      string(APPEND failures "\n${header} includes <${name}>: ${via} (${path})")
    endif()
  endforeach()
endforeach()

list(LENGTH checked n)
list(JOIN checked ", " checked_list)
list(JOIN exempted ", " exempted_list)
message(STATUS "checked ${n} headers: ${checked_list}")
message(STATUS "exempt (I/O and printing): ${exempted_list}")
if(failures)
  message(FATAL_ERROR "headers an embedded build cannot use:${failures}")
endif()

# SPDX-License-Identifier: BSL-1.0
# cmake -P script: what the compiled embedded example holds, read with binutils.
#   -DOBJECT=<embedded_attention.cpp.o> [-DBINARY=<embedded_attention>] -DNM=<nm> -DOBJDUMP=<objdump>
#   -DREADELF=<readelf> -DSYMBOLS=<mangled names that must be in .rodata>
#   -DALLOWED_UNDEFINED=<regex of the only external symbols the object may use>
# Checks, each failing with the evidence:
#  1. read-only data: every data object of the object file is in a .rodata section (none in .data,
#     .bss, .data.rel.ro, thread-local sections, ...), and the named SYMBOLS (the model and the
#     embedded matrices) are among them; in the linked BINARY they are in .rodata as well, and
#     BINARY needs no shared library but the C library;
#  2. no global mutable state: the object's .data and .bss are empty;
#  3. no static initialisation: no .init_array, .ctors or .preinit_array section, no
#     _GLOBAL__sub_I_ initialiser and no _ZGV guard variable;
#  4. no heap, no exceptions, no iostream: the object refers to no external symbol but
#     ALLOWED_UNDEFINED (printf, and the mem* functions a compiler may call), so in particular not
#     to operator new, malloc, __cxa_throw or std::cout.
cmake_minimum_required(VERSION 3.25)
set(failures "")

function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${rc}): ${e}")
  endif()
  set(${out} "${o}" PARENT_SCOPE)
endfunction()

# objdump -t: "<value> <flags> <section>\t<size> <name>"; data objects have the flag O.
function(data_objects out file)
  run(table ${OBJDUMP} -t -w "${file}")
  string(REPLACE "\n" ";" lines "${table}")
  set(found "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-f]+ ......O ([^ \t]+)\t[0-9a-f]+ +([^ ]+)$")
      list(APPEND found "${CMAKE_MATCH_2}=${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# 1. Every data object in read-only data; the named ones present.
data_objects(objects "${OBJECT}")
set(seen "")
foreach(entry IN LISTS objects)
  string(REGEX MATCH "^(.+)=([^=]+)$" _ "${entry}")
  set(name "${CMAKE_MATCH_1}")
  set(section "${CMAKE_MATCH_2}")
  if(NOT section MATCHES "^\\.rodata(\\.|$)")
    string(APPEND failures "\n  ${name} is in ${section}, not in read-only data")
  endif()
  list(APPEND seen "${name}")
endforeach()
foreach(symbol IN LISTS SYMBOLS)
  if(NOT symbol IN_LIST seen)
    string(APPEND failures "\n  ${symbol}: not a data object of ${OBJECT} (found: ${seen})")
  endif()
endforeach()
if(BINARY)
  data_objects(linked "${BINARY}")
  foreach(symbol IN LISTS SYMBOLS)
    set(found "${linked}")
    list(FILTER found INCLUDE REGEX "^${symbol}=")
    if(NOT found MATCHES "^${symbol}=\\.rodata$")
      string(APPEND failures "\n  ${symbol}: not in the .rodata of ${BINARY} (found: ${found})")
    endif()
  endforeach()
  # The program needs the C library only: not libstdc++, libm or libgcc_s.
  run(dynamic ${READELF} -d -W "${BINARY}")
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]]+)\\]" needed_lines "${dynamic}")
  foreach(line IN LISTS needed_lines)
    string(REGEX MATCH "\\[([^]]+)\\]" _ "${line}")
    set(library "${CMAKE_MATCH_1}")
    if(NOT library MATCHES "^(libc\\.so|ld-linux)")
      string(APPEND failures "\n  ${BINARY} needs ${library}: only the C library was expected")
    endif()
  endforeach()
endif()

# 2 and 3. Sections: "[Nr] Name Type Address Off Size ...", one a line with -W.
run(sections ${READELF} -S -W "${OBJECT}")
string(REPLACE "\n" ";" lines "${sections}")
foreach(line IN LISTS lines)
  if(line MATCHES "\\] (\\.(init_array|preinit_array|ctors)[^ ]*) ")
    string(APPEND failures "\n  section ${CMAKE_MATCH_1}: a static initialiser runs before main")
  elseif(line MATCHES "\\] (\\.(data|bss|tdata|tbss)(\\.[^ ]+)?) +[A-Z]+ +[0-9a-f]+ [0-9a-f]+ ([0-9a-f]+) ")
    set(section "${CMAKE_MATCH_1}")
    set(bytes "${CMAKE_MATCH_4}")
    if(NOT bytes MATCHES "^0+$")
      string(APPEND failures "\n  section ${section} holds 0x${bytes} bytes: mutable global state")
    endif()
  endif()
endforeach()
run(symbols ${NM} "${OBJECT}")
string(REGEX MATCHALL "[^\n]*(_GLOBAL__sub_I_|_ZGV)[^\n]*" initialisers "${symbols}")
foreach(line IN LISTS initialisers)
  string(APPEND failures "\n  ${line}: a static initialiser or guard variable")
endforeach()

# 4. External symbols: only the allowed ones.
run(undefined ${NM} -u "${OBJECT}")
string(REPLACE "\n" ";" lines "${undefined}")
set(externals "")
foreach(line IN LISTS lines)
  if(line MATCHES "U (.+)$")
    set(name "${CMAKE_MATCH_1}")
    list(APPEND externals "${name}")
    if(NOT name MATCHES "^(${ALLOWED_UNDEFINED})$")
      string(APPEND failures "\n  ${name}: an external symbol outside ${ALLOWED_UNDEFINED} (heap, exceptions or I/O?)")
    endif()
  endif()
endforeach()

list(LENGTH objects n)
list(JOIN externals ", " externals_list)
message(STATUS "${n} data objects, all in .rodata: ${seen}")
message(STATUS "external symbols: ${externals_list}")
if(failures)
  message(FATAL_ERROR "${OBJECT}:${failures}")
endif()
message(STATUS "read-only weights, no mutable globals, no static initialiser, no heap")

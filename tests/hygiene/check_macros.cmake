# SPDX-License-Identifier: BSL-1.0
# cmake -P script: no macro of the library is visible after including a public header. Every
# public header (detail/ excepted) is preprocessed alone with -dM; a macro whose name starts
# with SA_ or STATIC_ATTENTION_DETAIL_ fails the check (STATIC_ATTENTION_* without DETAIL are
# the user's switches, defined by the user).
#   -DCOMPILER=<c++> -DFLAGS=<list> -DINCLUDE_ROOT=<dir> -DWORK_DIR=<dir>
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE headers RELATIVE "${INCLUDE_ROOT}" "${INCLUDE_ROOT}/static_attention/*.hpp")
list(FILTER headers EXCLUDE REGEX "/detail/")
list(FILTER headers EXCLUDE REGEX "/io/fmt\\.hpp$")  # needs {fmt}; print.hpp includes it behind its switch
file(MAKE_DIRECTORY "${WORK_DIR}")
set(failures "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${header}" stem)
  file(WRITE "${WORK_DIR}/${stem}.cpp" "#include <${header}>\n")
  execute_process(COMMAND ${COMPILER} ${FLAGS} -E -dM "-I${INCLUDE_ROOT}" "${WORK_DIR}/${stem}.cpp"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "\n  ${header} does not preprocess: ${err}")
    continue()
  endif()
  string(REGEX MATCHALL "#define (SA_|STATIC_ATTENTION_DETAIL_)[A-Za-z0-9_]*" leaked "${out}")
  if(leaked)
    list(JOIN leaked ", " names)
    string(APPEND failures "\n  ${header} leaves ${names}")
  endif()
endforeach()
list(LENGTH headers count)
if(failures)
  message(FATAL_ERROR "macros of the library visible to users:${failures}")
endif()
message(STATUS "no library macro visible after any of ${count} public headers")

# SPDX-License-Identifier: BSL-1.0
# cmake -P script: runs embed_weights (TOOL) on inputs it must refuse and checks that each run
# fails, writes no header, and says why. FIXTURES: tests/npy/fixtures; OUT: a scratch directory.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
file(COPY_FILE "${FIXTURES}/v1_f4_3x2.npy" "${OUT}/while.npy")
file(COPY_FILE "${FIXTURES}/v1_f4_3x2.npy" "${OUT}/w-query.npy")
file(MAKE_DIRECTORY "${OUT}/other")
file(COPY_FILE "${FIXTURES}/v1_f4_3x2.npy" "${OUT}/other/v1_f4_3x2.npy")

set(n 0)
# expect_refusal(<regex> <args>...)
function(expect_refusal regex)
  math(EXPR n "${n} + 1")
  set(n ${n} PARENT_SCOPE)
  set(header "${OUT}/case${n}.hpp")
  execute_process(COMMAND "${TOOL}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "embed_weights ${ARGN} succeeded; expected a refusal matching '${regex}'")
  endif()
  if(NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "embed_weights ${ARGN}: message does not match '${regex}':\n${out}${err}")
  endif()
  if(EXISTS "${header}")
    message(FATAL_ERROR "embed_weights ${ARGN} failed but left ${header} behind")
  endif()
endfunction()

set(ok "${FIXTURES}/v1_f4_3x2.npy")
expect_refusal("dtype '<i4'" --namespace w --output "${OUT}/case1.hpp" "${FIXTURES}/int32_3x2.npy")
expect_refusal("fortran_order True" --namespace w --output "${OUT}/case2.hpp" "${FIXTURES}/fortran_f8_2x3.npy")
expect_refusal("big-endian\\); save a.astype\\('<f4'\\)" --namespace w --output "${OUT}/case3.hpp"
               "${FIXTURES}/big_endian_f4_3x2.npy")
expect_refusal("no such file" --namespace w --output "${OUT}/case4.hpp" "${OUT}/missing.npy")
expect_refusal("stem 'while'.*keyword" --namespace w --output "${OUT}/case5.hpp" "${OUT}/while.npy")
expect_refusal("stem 'w-query'" --namespace w --output "${OUT}/case6.hpp" "${OUT}/w-query.npy")
expect_refusal("second file with the stem 'v1_f4_3x2'" --namespace w --output "${OUT}/case7.hpp" "${ok}"
               "${OUT}/other/v1_f4_3x2.npy")
expect_refusal("not a namespace name" --namespace "a::1b" --output "${OUT}/case8.hpp" "${ok}")
expect_refusal("usage" --output "${OUT}/case9.hpp" "${ok}")
expect_refusal("unknown option '--nmespace'" --nmespace w --output "${OUT}/case10.hpp" "${ok}")
# A namespace the header cannot open at global scope: reserved to the standard library, or to the
# implementation (a leading underscore); and a file with no elements.
expect_refusal("'std::weights' is not a namespace name" --namespace std::weights --output "${OUT}/case11.hpp" "${ok}")
expect_refusal("'std2' is not a namespace name" --namespace std2 --output "${OUT}/case12.hpp" "${ok}")
expect_refusal("'posix' is not a namespace name" --namespace posix --output "${OUT}/case13.hpp" "${ok}")
expect_refusal("'_w' is not a namespace name" --namespace _w --output "${OUT}/case14.hpp" "${ok}")
expect_refusal("':: w' is not a namespace name" --namespace ":: w" --output "${OUT}/case15.hpp" "${ok}")
expect_refusal("'::w' is not a namespace name" --namespace ::w --output "${OUT}/case16.hpp" "${ok}")
expect_refusal("found shape \\(4, 0\\).*all dimensions > 0" --namespace w --output "${OUT}/case17.hpp"
               "${FIXTURES}/empty_f4_4x0.npy")
expect_refusal("big-endian\\); save a.astype\\('<f8'\\)" --namespace w --output "${OUT}/case18.hpp"
               "${FIXTURES}/big_endian_f8_2x3.npy")
message(STATUS "embed_weights refused all ${n} bad inputs")

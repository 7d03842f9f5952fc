# SPDX-License-Identifier: BSL-1.0
# Helpers a consumer may use after find_package(static_attention) or add_subdirectory.

# static_attention_raise_constexpr_limits(<target> [STEPS <n>])
# Raises the constant evaluator's budget for <target> (Clang: -fconstexpr-steps,
# GCC: -fconstexpr-ops-limit and -fconstexpr-loop-limit), so that larger shapes fit in static_assert.
function(static_attention_raise_constexpr_limits target)
  cmake_parse_arguments(ARG "" "STEPS" "" ${ARGN})
  if(NOT ARG_STEPS)
    set(ARG_STEPS 1073741824)
  endif()
  target_compile_options(${target} PRIVATE
    $<$<CXX_COMPILER_ID:Clang>:-fconstexpr-steps=${ARG_STEPS}>
    $<$<CXX_COMPILER_ID:GNU>:-fconstexpr-ops-limit=${ARG_STEPS}>
    $<$<CXX_COMPILER_ID:GNU>:-fconstexpr-loop-limit=${ARG_STEPS}>)
endfunction()

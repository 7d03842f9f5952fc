# SPDX-License-Identifier: BSL-1.0
# static_attention_embed_int8_attention(<target> NAMESPACE <ns> HEADER <name.hpp> NAME <variable>
#                                       MODEL <model.npz | directory of .npy> CALIBRATION <calib.npy>
#                                       HEADS <num_heads> [CONTEXT_LENGTH <n>])
#
# The int8 sibling of static_attention_embed_weights (StaticAttentionEmbed.cmake): quantizes a
# float multi-head attention (nn.Linear layout: w_query, w_key, w_value, out_proj_weight,
# out_proj_bias, optionally b_query, b_key, b_value) with min/max calibration at build time, and
# writes a header holding `inline constexpr static_attention::quantized_multi_head_attention<...>
# <variable>` (tools/quantize_weights.py: the same arithmetic as static_attention::quantize()).
# Where the unfused and the fused matrix kernels calibrate to other scales, the header holds
# both and <variable> is a constexpr reference to the including build's.
# The header's directory is added to <target>'s include path.
#
# Needs a Python 3 with numpy at build time: STATIC_ATTENTION_INT8_PYTHON, or the first of
# Python3_EXECUTABLE and /usr/bin/python3 that imports numpy. static_attention_int8_python(<var>)
# sets <var> to it, or to "" when there is none.
include_guard(GLOBAL)

set(STATIC_ATTENTION_INT8_PYTHON "" CACHE FILEPATH "A Python 3 with numpy for tools/quantize_weights.py; empty: search")

function(static_attention_int8_python out_var)
  if(STATIC_ATTENTION_INT8_PYTHON)
    set(${out_var} "${STATIC_ATTENTION_INT8_PYTHON}" PARENT_SCOPE)
    return()
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  foreach(_candidate "${Python3_EXECUTABLE}" /usr/bin/python3)
    if(_candidate AND EXISTS "${_candidate}")
      execute_process(COMMAND "${_candidate}" -c "import numpy" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
      if(_rc EQUAL 0)
        set(STATIC_ATTENTION_INT8_PYTHON "${_candidate}" CACHE FILEPATH "A Python 3 with numpy" FORCE)
        set(${out_var} "${_candidate}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${out_var} "" PARENT_SCOPE)
endfunction()

function(static_attention_embed_int8_attention target)
  cmake_parse_arguments(ARG "" "NAMESPACE;HEADER;NAME;MODEL;CALIBRATION;HEADS;CONTEXT_LENGTH" "" ${ARGN})
  if(NOT TARGET ${target})
    message(FATAL_ERROR "static_attention_embed_int8_attention(${target} ...) requires an existing target")
  endif()
  foreach(_required NAMESPACE HEADER NAME MODEL CALIBRATION HEADS)
    if(NOT ARG_${_required})
      message(FATAL_ERROR "static_attention_embed_int8_attention(${target} ...) requires ${_required}")
    endif()
  endforeach()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "static_attention_embed_int8_attention(${target} ...): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  static_attention_int8_python(_python)
  if(NOT _python)
    message(FATAL_ERROR "static_attention_embed_int8_attention: no Python 3 with numpy; set STATIC_ATTENTION_INT8_PYTHON")
  endif()
  set(_tool "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tools/quantize_weights.py")
  if(NOT EXISTS "${_tool}")
    set(_tool "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../../static_attention/tools/quantize_weights.py")
  endif()
  get_filename_component(_model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(_calibration "${ARG_CALIBRATION}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(IS_DIRECTORY "${_model}")
    file(GLOB _model_files "${_model}/*.npy")
  else()
    set(_model_files "${_model}")
  endif()
  if(NOT ARG_CONTEXT_LENGTH)
    set(ARG_CONTEXT_LENGTH 0)
  endif()
  set(_include_dir "${CMAKE_CURRENT_BINARY_DIR}/static_attention_embed_int8/${target}")
  set(_header "${_include_dir}/${ARG_HEADER}")
  add_custom_command(
    OUTPUT "${_header}"
    COMMAND "${_python}" "${_tool}" --model "${_model}" --calibration "${_calibration}" --heads ${ARG_HEADS}
            --context-length ${ARG_CONTEXT_LENGTH} --namespace "${ARG_NAMESPACE}" --name "${ARG_NAME}"
            --output "${_header}"
    DEPENDS ${_model_files} "${_calibration}" "${_tool}"
    COMMENT "Quantizing ${ARG_MODEL} to int8 as ${ARG_HEADER} (${ARG_NAMESPACE}::${ARG_NAME})"
    VERBATIM)
  string(MAKE_C_IDENTIFIER "${target}_int8_${ARG_HEADER}" _step)
  add_custom_target(${_step} DEPENDS "${_header}")
  add_dependencies(${target} ${_step})
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE "${_include_dir}")
  else()
    target_include_directories(${target} PUBLIC "${_include_dir}")
  endif()
endfunction()

# SPDX-License-Identifier: BSL-1.0
# static_attention_embed_gpt2_vocab(<target> NAME <name> HEADER <name.hpp>
#                                   [ENCODER <encoder.json>] [MERGES <vocab.bpe>])
#
# Turns OpenAI's GPT-2 vocabulary files into a header of constexpr tables at build time, with
# tools/embed_gpt2_vocab.cpp, for text encoded in a static_assert or at run time with no files:
#   static_attention_embed_gpt2_vocab(my_app NAME my_app::gpt2_vocab HEADER my_app/gpt2_vocab.hpp)
# then, in my_app's sources:
#   #include <my_app/gpt2_vocab.hpp>
#   static_assert(*my_app::gpt2_vocab.count("Hello, I am") == 4);
#
# ENCODER and MERGES default to the copies in static_attention's third_party/gpt2-vocab/. The
# header is regenerated when a file changes, and its directory is added to <target>'s include
# path. The generator is the target embed_gpt2_vocab when the build has one (static_attention's
# own tree defines it in tools/), else built from source here; when cross-compiling, build it for
# the host and point STATIC_ATTENTION_EMBED_GPT2_VOCAB_EXECUTABLE at it.
include_guard(GLOBAL)

set(STATIC_ATTENTION_EMBED_GPT2_VOCAB_EXECUTABLE "" CACHE FILEPATH
    "A host build of static_attention's embed_gpt2_vocab; empty: build it from source (not when cross-compiling)")

# The generator: a path, or a target of this build (embed_gpt2_vocab), created on first use.
function(_static_attention_embed_vocab_tool out_var)
  if(STATIC_ATTENTION_EMBED_GPT2_VOCAB_EXECUTABLE)
    set(${out_var} "${STATIC_ATTENTION_EMBED_GPT2_VOCAB_EXECUTABLE}" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET embed_gpt2_vocab)
    if(CMAKE_CROSSCOMPILING)
      message(FATAL_ERROR "static_attention_embed_gpt2_vocab: cross-compiling, so the generator built here would "
                          "not run here; build tools/embed_gpt2_vocab.cpp for the host and set "
                          "STATIC_ATTENTION_EMBED_GPT2_VOCAB_EXECUTABLE to it")
    endif()
    set(_source "")
    foreach(_candidate "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tools/embed_gpt2_vocab.cpp"
                       "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../../static_attention/tools/embed_gpt2_vocab.cpp")
      if(EXISTS "${_candidate}")
        set(_source "${_candidate}")
        break()
      endif()
    endforeach()
    if(NOT _source)
      message(FATAL_ERROR "static_attention_embed_gpt2_vocab: cannot find embed_gpt2_vocab.cpp next to ${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
    endif()
    add_executable(embed_gpt2_vocab "${_source}")
    target_compile_features(embed_gpt2_vocab PRIVATE cxx_std_20)
    target_link_libraries(embed_gpt2_vocab PRIVATE static_attention::static_attention)
    if(TARGET static_attention_warnings)
      target_link_libraries(embed_gpt2_vocab PRIVATE static_attention_warnings)
    endif()
  endif()
  set(${out_var} embed_gpt2_vocab PARENT_SCOPE)
endfunction()

function(static_attention_embed_gpt2_vocab target)
  cmake_parse_arguments(ARG "" "NAME;HEADER;ENCODER;MERGES" "" ${ARGN})
  if(NOT TARGET ${target})
    message(FATAL_ERROR "static_attention_embed_gpt2_vocab(${target} ...) requires an existing target")
  endif()
  if(NOT ARG_NAME OR NOT ARG_HEADER OR ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "static_attention_embed_gpt2_vocab(${target} ...) requires NAME <name> HEADER <name.hpp> "
                        "[ENCODER <encoder.json>] [MERGES <vocab.bpe>] and nothing else; got: ${ARGN}")
  endif()
  if(IS_ABSOLUTE "${ARG_HEADER}")
    message(FATAL_ERROR "static_attention_embed_gpt2_vocab(${target} ...) requires a relative HEADER, as it is "
                        "#included: got ${ARG_HEADER}")
  endif()
  set(_vocab_dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../third_party/gpt2-vocab")
  if(NOT ARG_ENCODER)
    set(ARG_ENCODER "${_vocab_dir}/encoder.json")
  endif()
  if(NOT ARG_MERGES)
    set(ARG_MERGES "${_vocab_dir}/vocab.bpe")
  endif()
  get_filename_component(_encoder "${ARG_ENCODER}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(_merges "${ARG_MERGES}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  _static_attention_embed_vocab_tool(_tool)

  set(_include_dir "${CMAKE_CURRENT_BINARY_DIR}/static_attention_embed_vocab/${target}")
  set(_header "${_include_dir}/${ARG_HEADER}")
  if(TARGET ${_tool})
    set(_command $<TARGET_FILE:${_tool}>)
  else()
    set(_command "${_tool}")
  endif()
  get_filename_component(_header_dir "${_header}" DIRECTORY)
  add_custom_command(
    OUTPUT "${_header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${_header_dir}"
    COMMAND ${_command} --output "${_header}" "${_encoder}" "${_merges}" "${ARG_NAME}"
    DEPENDS "${_encoder}" "${_merges}" ${_tool}
    COMMENT "Embedding GPT-2's vocabulary as ${ARG_HEADER} (${ARG_NAME})"
    VERBATIM)
  string(MAKE_C_IDENTIFIER "${target}_embed_vocab_${ARG_HEADER}" _step)
  if(TARGET ${_step})
    message(FATAL_ERROR "static_attention_embed_gpt2_vocab(${target} ...) already writes ${ARG_HEADER}")
  endif()
  add_custom_target(${_step} DEPENDS "${_header}")
  add_dependencies(${target} ${_step})
  get_target_property(_type ${target} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE "${_include_dir}")
  else()
    target_include_directories(${target} PUBLIC "${_include_dir}")
  endif()
endfunction()

# SPDX-License-Identifier: BSL-1.0
# static_attention_embed_weights(<target> NAMESPACE <ns> HEADER <name.hpp> FILES <a.npy>...)
#
# Turns .npy files into a header of constexpr weights at build time, for models whose weights
# live in the binary (embedded targets: no file system, no parser, no heap at run time):
#   static_attention_embed_weights(my_model NAMESPACE my_model::weights HEADER my_model/weights.hpp
#                                  FILES weights/w_query.npy weights/w_key.npy)
# then, in my_model's sources:
#   #include <my_model/weights.hpp>
#   constexpr auto q = static_attention::matmul(x, my_model::weights::w_query);
#
# Each file becomes `inline constexpr static_attention::matrix<float, R, C> <stem>{...}` (or a
# tensor, or double for '<f8'); see tools/embed_weights.cpp. The header is regenerated when a
# file changes, and its directory is added to <target>'s include path.
#
# The generator is built from source in the calling project, since it must run on the build
# machine. When cross-compiling, build it for the host once and point
# STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE at it.
include_guard(GLOBAL)

set(STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE "" CACHE FILEPATH
    "A host build of static_attention's embed_weights; empty: build it from source (not when cross-compiling)")

# The generator: a path, or a target of this build created on first use.
function(_static_attention_embed_tool out_var)
  if(STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE)
    set(${out_var} "${STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE}" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET static_attention_embed_weights_tool)
    if(CMAKE_CROSSCOMPILING)
      message(FATAL_ERROR "static_attention_embed_weights: cross-compiling, so the generator built here would "
                          "not run here; build tools/embed_weights.cpp for the host and set "
                          "STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE to it")
    endif()
    # In the source tree the generator sits in tools/; installed, in share/static_attention/tools/.
    set(_source "")
    foreach(_candidate "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../tools/embed_weights.cpp"
                       "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../../static_attention/tools/embed_weights.cpp")
      if(EXISTS "${_candidate}")
        set(_source "${_candidate}")
        break()
      endif()
    endforeach()
    if(NOT _source)
      message(FATAL_ERROR "static_attention_embed_weights: cannot find embed_weights.cpp next to ${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
    endif()
    add_executable(static_attention_embed_weights_tool "${_source}")
    set_target_properties(static_attention_embed_weights_tool PROPERTIES OUTPUT_NAME embed_weights)
    target_compile_features(static_attention_embed_weights_tool PRIVATE cxx_std_20)
    target_link_libraries(static_attention_embed_weights_tool PRIVATE static_attention::static_attention)
    # Only defined when static_attention itself is the top-level project (its own CI).
    if(TARGET static_attention_warnings)
      target_link_libraries(static_attention_embed_weights_tool PRIVATE static_attention_warnings)
    endif()
  endif()
  set(${out_var} static_attention_embed_weights_tool PARENT_SCOPE)
endfunction()

function(static_attention_embed_weights target)
  cmake_parse_arguments(ARG "" "NAMESPACE;HEADER" "FILES" ${ARGN})
  if(NOT TARGET ${target})
    message(FATAL_ERROR "static_attention_embed_weights(${target} ...) requires an existing target")
  endif()
  if(NOT ARG_NAMESPACE OR NOT ARG_HEADER OR NOT ARG_FILES OR ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "static_attention_embed_weights(${target} ...) requires NAMESPACE <ns> HEADER <name.hpp> "
                        "FILES <a.npy>... and nothing else; got: ${ARGN}")
  endif()
  if(IS_ABSOLUTE "${ARG_HEADER}")
    message(FATAL_ERROR "static_attention_embed_weights(${target} ...) requires a relative HEADER, as it is "
                        "#included: got ${ARG_HEADER}")
  endif()
  _static_attention_embed_tool(_tool)

  set(_files "")
  foreach(_file IN LISTS ARG_FILES)
    get_filename_component(_file "${_file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _files "${_file}")
  endforeach()

  set(_include_dir "${CMAKE_CURRENT_BINARY_DIR}/static_attention_embed/${target}")
  set(_header "${_include_dir}/${ARG_HEADER}")
  if(TARGET ${_tool})
    set(_command $<TARGET_FILE:${_tool}>)
  else()
    set(_command "${_tool}")
  endif()
  list(JOIN ARG_FILES " " _file_list)
  add_custom_command(
    OUTPUT "${_header}"
    COMMAND ${_command} --namespace "${ARG_NAMESPACE}" --output "${_header}" ${_files}
    DEPENDS ${_files} ${_tool}
    COMMENT "Embedding ${_file_list} as ${ARG_HEADER} (namespace ${ARG_NAMESPACE})"
    VERBATIM)
  # A custom target per header, so that the header exists before any source of <target> compiles.
  string(MAKE_C_IDENTIFIER "${target}_embed_${ARG_HEADER}" _step)
  if(TARGET ${_step})
    message(FATAL_ERROR "static_attention_embed_weights(${target} ...) already writes ${ARG_HEADER}")
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

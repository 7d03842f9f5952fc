# SPDX-License-Identifier: BSL-1.0
# cmake -P script: generates single_include/static_attention.hpp, the whole library in one header
# for Compiler Explorer and copy-in use.
#
#   cmake -P tools/dev/amalgamate.cmake                     rewrites single_include/static_attention.hpp
#   cmake -DOUT=<file> -P tools/dev/amalgamate.cmake        writes <file> instead
#   cmake -DOUT=<file> -DCHECK=ON -P tools/dev/amalgamate.cmake
#                                                       writes <file> and fails if the checked-in
#                                                       single header differs from it (test
#                                                       single_include.up_to_date)
#
# What goes in: every public header (the umbrella's core, random.hpp for the chapter's seeds,
# print.hpp for PyTorch's printing, heatmap.hpp, ...) except npy.hpp, file loading, which a
# Compiler Explorer or copy-in user has no files for. fmt.hpp goes in behind the switch print.hpp
# has (STATIC_ATTENTION_USE_FMT, with {fmt} installed), so it costs nothing otherwise.
#
# How: every `#include <static_attention/...>` (or "static_attention/...") is replaced by that
# header's text the first time it is met, depth first, which is the order the preprocessor
# itself sees with #pragma once; later includes of the same header vanish. Every other include
# (<boost/hana/...>, the standard library) stays external: the unconditional ones are gathered,
# deduplicated and sorted at the top, those inside #if blocks stay where they are.
# No Python is needed, so that the tests need none at run time.
cmake_minimum_required(VERSION 3.25)

get_filename_component(ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(checked_in "${ROOT}/single_include/static_attention.hpp")
if(NOT OUT)
  set(OUT "${checked_in}")
endif()

# The public headers that make up the single header: the umbrella first, then every other
# public header in name order, except those in `excluded`.
set(excluded static_attention/io.hpp static_attention/io/tokenizer_files.hpp static_attention/io/safetensors.hpp static_attention/io/load_options.hpp static_attention/io/npy.hpp static_attention/io/fmt.hpp static_attention/io/state_dict.hpp)
file(GLOB_RECURSE public RELATIVE "${ROOT}/include" "${ROOT}/include/static_attention/*.hpp")
list(FILTER public EXCLUDE REGEX "/detail/")
list(SORT public)
set(roots static_attention/static_attention.hpp ${public})
list(REMOVE_ITEM roots ${excluded})
list(REMOVE_DUPLICATES roots)

set(body "")          # the inlined text
set(externals "")     # unconditional external includes, e.g. "<cstddef>"
set(visited "")       # headers already inlined (as #pragma once would have it)
set(public_inlined "")

# Appends the text of <header> (relative to include/) to `body`, inlining its static_attention
# includes. `depth` is the #if nesting level at which the header is included.
function(sa_inline header depth)
  if(header IN_LIST visited)
    return()
  endif()
  # A header without #pragma once (math_begin.hpp, math_end.hpp) is meant to be met each time.
  file(STRINGS "${ROOT}/include/${header}" once REGEX "^#pragma once")
  if(once)
    list(APPEND visited "${header}")
    set(visited "${visited}" PARENT_SCOPE)
  endif()
  if(NOT header MATCHES "/detail/" AND depth EQUAL 0)
    list(APPEND public_inlined "${header}")
    set(public_inlined "${public_inlined}" PARENT_SCOPE)
  endif()
  set(path "${ROOT}/include/${header}")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "amalgamate: ${header} not found under ${ROOT}/include")
  endif()
  file(READ "${path}" text)
  # Lines one by one; `;` and `[`/`]` would confuse CMake lists, so they travel escaped.
  string(REPLACE "\\" "<SA_BACKSLASH>" text "${text}")
  string(REPLACE ";" "<SA_SEMICOLON>" text "${text}")
  string(REPLACE "[" "<SA_LBRACKET>" text "${text}")
  string(REPLACE "]" "<SA_RBRACKET>" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  string(APPEND body "\n// ---- ${header} " )
  string(LENGTH "${header}" len)
  math(EXPR fill "88 - ${len}")
  if(fill GREATER 0)
    string(REPEAT "-" ${fill} dashes)
    string(APPEND body "${dashes}")
  endif()
  string(APPEND body "\n")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*#[ \t]*pragma[ \t]+once")
      continue()
    elseif(line MATCHES "^[ \t]*#[ \t]*if")
      math(EXPR depth "${depth} + 1")
    elseif(line MATCHES "^[ \t]*#[ \t]*endif")
      math(EXPR depth "${depth} - 1")
    endif()
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"](static_attention/[^>\"]+)[>\"]")
      set(inner "${CMAKE_MATCH_1}")
      sa_inline("${inner}" ${depth})
      continue()
    elseif(line MATCHES "^[ \t]*#[ \t]*include[ \t]*(<[^>]+>)" AND depth EQUAL 0)
      list(APPEND externals "${CMAKE_MATCH_1}")
      continue()
    endif()
    string(APPEND body "${line}\n")
  endforeach()
  set(body "${body}" PARENT_SCOPE)
  set(externals "${externals}" PARENT_SCOPE)
  set(visited "${visited}" PARENT_SCOPE)
  set(public_inlined "${public_inlined}" PARENT_SCOPE)
endfunction()

foreach(root IN LISTS roots)
  sa_inline(${root} 0)
endforeach()

list(REMOVE_DUPLICATES externals)
list(SORT externals)
set(boost_includes "")
set(std_includes "")
foreach(inc IN LISTS externals)
  if(inc MATCHES "^<boost/")
    string(APPEND boost_includes "#include ${inc}\n")
  else()
    string(APPEND std_includes "#include ${inc}\n")
  endif()
endforeach()

list(SORT public_inlined)
set(manifest "")
foreach(header IN LISTS public_inlined)
  string(APPEND manifest "// - ${header}\n")
endforeach()

file(STRINGS "${ROOT}/CMakeLists.txt" project_line REGEX "^project\\(static_attention VERSION")
string(REGEX MATCH "VERSION ([0-9.]+)" _ "${project_line}")
set(version "${CMAKE_MATCH_1}")

set(header "// SPDX-License-Identifier: BSL-1.0
// static_attention ${version}, single-header edition: shape-typed, constexpr transformer
// attention for C++20. Needs Boost.Hana (headers only); nothing else.
//
// GENERATED by tools/dev/amalgamate.cmake from include/; do not edit. Regenerate with
//   cmake -P tools/dev/amalgamate.cmake
// (test single_include.up_to_date fails while this file is stale).
//
// It holds these public headers, and the detail/ headers they use; `#include` any of them from
// include/ or this one file, not both:
${manifest}//
// Not included: file loading (static_attention/io.hpp, io/npy.hpp, io/state_dict.hpp); use
// include/ for it.
// fmt.hpp is included behind the switch print.hpp has: define STATIC_ATTENTION_USE_FMT, with
// {fmt} installed, for `fmt::format(\"{}\", m)`.
#pragma once

// External includes: Boost.Hana, then the standard library.
${boost_includes}
${std_includes}")

set(result "${header}${body}")
string(REPLACE "<SA_SEMICOLON>" ";" result "${result}")
string(REPLACE "<SA_BACKSLASH>" "\\" result "${result}")
string(REPLACE "<SA_LBRACKET>" "[" result "${result}")
string(REPLACE "<SA_RBRACKET>" "]" result "${result}")
# One blank line at most between blocks.
string(REGEX REPLACE "\n\n\n+" "\n\n" result "${result}")

file(WRITE "${OUT}" "${result}")

if(CHECK)
  if(OUT STREQUAL checked_in)
    message(FATAL_ERROR "amalgamate: CHECK needs OUT to be a file other than the checked-in header")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${checked_in}" "${OUT}" RESULT_VARIABLE differ)
  if(differ)
    find_program(DIFF diff)
    if(DIFF)
      execute_process(COMMAND ${DIFF} -u "${checked_in}" "${OUT}")
    endif()
    message(FATAL_ERROR "single_include/static_attention.hpp is stale (diff above); regenerate it with\n"
                        "  cmake -P tools/dev/amalgamate.cmake")
  endif()
endif()

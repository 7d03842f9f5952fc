# SPDX-License-Identifier: BSL-1.0
# Included at the end of the project() calls of a build configured with cortex-m4f.cmake or
# cortex-m3.cmake (the toolchain sets CMAKE_PROJECT_INCLUDE to this file); acts once, at the
# first, and never in CMake's own try-compile projects. It
#  1. finds Boost on the host and gives its header-only target Boost::headers an include
#     directory that holds `boost` only (ports/cmake/StaticAttentionHostHeaders.cmake): with
#     -I/usr/include the host's glibc headers would shadow newlib's;
#  2. builds the weight embedder (tools/embed_weights.cpp) with the host's compiler, when
#     STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE does not name one already, so that
#     static_attention_embed_weights() works in the cross build;
#  3. turns static_attention's own tests off by default in a cross build (they are host tests;
#     the device tests are tests/device, built from the host build);
#  4. adds startup.c to every executable target of the project, at the end of the top-level
#     CMakeLists.txt (unless STATIC_ATTENTION_CORTEX_M_STARTUP is OFF, or the target has the
#     property STATIC_ATTENTION_NO_STARTUP).
get_property(_sa_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
get_property(_sa_mps2_done GLOBAL PROPERTY _STATIC_ATTENTION_MPS2_DONE)
if(_sa_in_try_compile OR _sa_mps2_done)
  return()
endif()
set_property(GLOBAL PROPERTY _STATIC_ATTENTION_MPS2_DONE TRUE)

get_filename_component(_sa_source_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

# 1. Boost, header-only, from the host.
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/StaticAttentionHostHeaders.cmake")
static_attention_import_host_package(Boost Boost::headers boost)

# 2. The weight embedder, for the host.
if("$CACHE{STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE}" STREQUAL "" AND EXISTS "${_sa_source_root}/tools/embed_weights.cpp"
   AND TARGET Boost::headers)
  set(_sa_embedder "${CMAKE_BINARY_DIR}/static_attention_host_tools/embed_weights")
  file(GLOB_RECURSE _sa_embedder_inputs "${_sa_source_root}/include/static_attention/*.hpp")
  list(APPEND _sa_embedder_inputs "${_sa_source_root}/tools/embed_weights.cpp")
  set(_sa_stale NOT EXISTS "${_sa_embedder}")
  foreach(_sa_input IN LISTS _sa_embedder_inputs)
    if("${_sa_input}" IS_NEWER_THAN "${_sa_embedder}")
      set(_sa_stale TRUE)
    endif()
  endforeach()
  if(_sa_stale)
    find_program(STATIC_ATTENTION_HOST_CXX NAMES c++ g++ clang++ NO_CMAKE_FIND_ROOT_PATH
                 DOC "The host's C++ compiler, for the weight embedder")
    get_target_property(_sa_boost_dirs Boost::headers INTERFACE_INCLUDE_DIRECTORIES)
    list(TRANSFORM _sa_boost_dirs PREPEND "-I")
    file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/static_attention_host_tools")
    message(STATUS "Building the weight embedder for the host: ${_sa_embedder}")
    execute_process(COMMAND "${STATIC_ATTENTION_HOST_CXX}" -std=c++20 -O1 "-I${_sa_source_root}/include"
                            ${_sa_boost_dirs} "${_sa_source_root}/tools/embed_weights.cpp" -o "${_sa_embedder}"
                    RESULT_VARIABLE _sa_rc ERROR_VARIABLE _sa_err)
    if(NOT _sa_rc EQUAL 0)
      message(WARNING "Could not build the weight embedder with ${STATIC_ATTENTION_HOST_CXX}: ${_sa_err}")
      file(REMOVE "${_sa_embedder}")
    endif()
  endif()
  if(EXISTS "${_sa_embedder}")
    # A normal variable: static_attention_embed_weights() reads it before the (empty) cache entry.
    set(STATIC_ATTENTION_EMBED_WEIGHTS_EXECUTABLE "${_sa_embedder}")
  endif()
endif()

# 3. The library's host tests, off unless asked for.
if(PROJECT_NAME STREQUAL "static_attention" AND NOT DEFINED CACHE{STATIC_ATTENTION_BUILD_TESTS})
  message(STATUS "Cross-compiling for ${STATIC_ATTENTION_CORTEX_M_BOARD}: STATIC_ATTENTION_BUILD_TESTS defaults to OFF "
                 "(the host tests; the device tests are tests/device, see docs/embedded.md)")
  set(STATIC_ATTENTION_BUILD_TESTS OFF CACHE BOOL "Build the tests")
endif()

# 4. Start-up code in every executable.
if(STATIC_ATTENTION_CORTEX_M_STARTUP)
  enable_language(C)
  add_library(static_attention_mps2_startup OBJECT "${CMAKE_CURRENT_LIST_DIR}/startup.c")

  function(_static_attention_mps2_attach directory)
    get_property(_targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(_target IN LISTS _targets)
      get_target_property(_type ${_target} TYPE)
      get_target_property(_opt_out ${_target} STATIC_ATTENTION_NO_STARTUP)
      if(_type STREQUAL "EXECUTABLE" AND NOT _opt_out)
        target_sources(${_target} PRIVATE $<TARGET_OBJECTS:static_attention_mps2_startup>)
      endif()
    endforeach()
    get_property(_subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(_subdirectory IN LISTS _subdirectories)
      _static_attention_mps2_attach("${_subdirectory}")
    endforeach()
  endfunction()
  cmake_language(DEFER CALL _static_attention_mps2_attach "${CMAKE_CURRENT_SOURCE_DIR}")
endif()

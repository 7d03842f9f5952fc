# SPDX-License-Identifier: BSL-1.0
# static_attention_host_headers(<imported target> <entry>...)
#
# A cross compiler must not search the host's /usr/include: the host's C library headers would
# shadow the target's (arm-none-eabi: `bits/libc-header-start.h` not found; aarch64: x86-64
# glibc headers). Header-only packages found on the host, such as Boost or doctest, point their
# imported targets at /usr/include all the same. This re-points <target>'s include directories:
# each directory that holds one of <entry>... (e.g. "boost") is replaced by a directory of the
# build tree that holds links to those entries and nothing else. The include path then gets what
# the package needs, and no other host header can be found by mistake.
include_guard(GLOBAL)

function(static_attention_host_headers target)
  get_target_property(_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT _dirs)
    return()
  endif()
  string(MAKE_C_IDENTIFIER "${target}" _id)
  set(_links "${CMAKE_BINARY_DIR}/static_attention_host_headers/${_id}")
  set(_new "")
  foreach(_dir IN LISTS _dirs)
    set(_moved FALSE)
    foreach(_entry IN LISTS ARGN)
      if(EXISTS "${_dir}/${_entry}")
        file(MAKE_DIRECTORY "${_links}")
        file(REMOVE "${_links}/${_entry}")
        file(CREATE_LINK "${_dir}/${_entry}" "${_links}/${_entry}" SYMBOLIC)
        set(_moved TRUE)
      endif()
    endforeach()
    if(_moved)
      list(APPEND _new "${_links}")
    else()
      list(APPEND _new "${_dir}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _new)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_new}")
endfunction()

# static_attention_import_host_package(<package> <target> <entry>...)
#
# For a cross build: finds a header-only package of the build machine (its CMake config in the
# host's package directories, which a cross build does not search by itself: the host's library
# architecture differs), makes <target> global, and re-points it with
# static_attention_host_headers(<target> <entry>...). Called before the project's own
# find_package(<package> ...), which then finds the target defined and uses it. Quiet if the
# package is not installed: the project's own find_package reports it.
function(static_attention_import_host_package package target)
  if(NOT TARGET ${target})
    find_package(${package} QUIET CONFIG
                 PATHS "/usr/lib/${CMAKE_HOST_SYSTEM_PROCESSOR}-linux-gnu/cmake" /usr/lib/cmake /usr/local/lib/cmake
                       /usr/share/cmake)
  endif()
  if(TARGET ${target})
    get_target_property(_imported ${target} IMPORTED)
    get_target_property(_global ${target} IMPORTED_GLOBAL)
    if(_imported AND NOT _global)
      set_property(TARGET ${target} PROPERTY IMPORTED_GLOBAL TRUE)
    endif()
    if(_imported)
      static_attention_host_headers(${target} ${ARGN})
    endif()
  endif()
endfunction()

# SPDX-License-Identifier: BSL-1.0
# Included at the end of the project() calls of a build configured with aarch64-linux-gnu.cmake;
# acts once, at the first, and never in try-compile projects: Boost and doctest, header-only
# packages of the build machine, get include directories that hold their headers only
# (ports/cmake/StaticAttentionHostHeaders.cmake).
get_property(_sa_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)
get_property(_sa_aarch64_done GLOBAL PROPERTY _STATIC_ATTENTION_AARCH64_DONE)
if(_sa_in_try_compile OR _sa_aarch64_done)
  return()
endif()
set_property(GLOBAL PROPERTY _STATIC_ATTENTION_AARCH64_DONE TRUE)
include("${CMAKE_CURRENT_LIST_DIR}/../cmake/StaticAttentionHostHeaders.cmake")
static_attention_import_host_package(Boost Boost::headers boost)
static_attention_import_host_package(doctest doctest::doctest doctest)

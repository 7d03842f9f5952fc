# SPDX-License-Identifier: BSL-1.0
# cmake --install support and a package config, so that find_package(static_attention) works.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS static_attention EXPORT static_attention_targets)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/static_attention"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

set(_sa_cmake_dir "${CMAKE_INSTALL_DATADIR}/cmake/static_attention")
install(EXPORT static_attention_targets
        NAMESPACE static_attention::
        DESTINATION "${_sa_cmake_dir}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/static_attention-config.cmake.in"
  "${PROJECT_BINARY_DIR}/static_attention-config.cmake"
  INSTALL_DESTINATION "${_sa_cmake_dir}")
# Header-only and architecture-independent: any pointer size may use it.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/static_attention-config-version.cmake"
  COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES
  "${PROJECT_BINARY_DIR}/static_attention-config.cmake"
  "${PROJECT_BINARY_DIR}/static_attention-config-version.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/StaticAttentionHelpers.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/StaticAttentionEmbed.cmake"
  DESTINATION "${_sa_cmake_dir}")
# The weights generator is built from source by static_attention_embed_weights in the consumer.
install(FILES "${PROJECT_SOURCE_DIR}/tools/embed_weights.cpp"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/static_attention/tools")

# SPDX-License-Identifier: BSL-1.0
# CMake toolchain file: AArch64 Linux with Debian's g++-aarch64-linux-gnu; programs run on the build
# machine under qemu-user (qemu-aarch64 -L /usr/aarch64-linux-gnu), which CTest uses by itself
# (CMAKE_CROSSCOMPILING_EMULATOR). The default -march (armv8-a) has Advanced SIMD, so the kernels
# take their 128-bit NEON path, which no x86-64 machine runs. Usage, from the repository root:
#   cmake --toolchain ports/aarch64-linux/aarch64-linux-gnu.cmake -S . -B build/aarch64 \
#         -DCMAKE_BUILD_TYPE=Release
#   cmake --build build/aarch64 && ctest --test-dir build/aarch64
# Boost and doctest are header-only packages of the build machine: aarch64-project.cmake points
# them at directories holding only their headers, so the host's glibc headers stay out.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# qemu-run.sh: qemu-aarch64 with the target's libraries, or "SKIPPED" (status 77) without it.
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/qemu-run.sh")

if(NOT CMAKE_PROJECT_INCLUDE)
  set(CMAKE_PROJECT_INCLUDE "${CMAKE_CURRENT_LIST_DIR}/aarch64-project.cmake")
endif()

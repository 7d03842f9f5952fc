# SPDX-License-Identifier: BSL-1.0
# CMake toolchain file: Cortex-M3, no FPU (floating point in software, soft-float ABI); programs
# run on QEMU's mps2-an385 board. Usage, from the repository root:
#   cmake --toolchain ports/cortex-m/cortex-m3.cmake -S . -B build/m3 -DCMAKE_BUILD_TYPE=MinSizeRel
#   cmake --build build/m3 && ctest --test-dir build/m3        # the examples, under QEMU
# See arm-none-eabi.cmake for what it sets up, and docs/embedded.md.
set(STATIC_ATTENTION_CORTEX_M_FLAGS -mcpu=cortex-m3 -mthumb -mfloat-abi=soft)
set(STATIC_ATTENTION_CORTEX_M_BOARD mps2-an385)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake")

# SPDX-License-Identifier: BSL-1.0
# CMake toolchain file: Cortex-M4F, single-precision FPU (FPv4-SP-D16), hard-float ABI; programs
# run on QEMU's mps2-an386 board. Usage, from the repository root:
#   cmake --toolchain ports/cortex-m/cortex-m4f.cmake -S . -B build/m4f -DCMAKE_BUILD_TYPE=MinSizeRel
#   cmake --build build/m4f && ctest --test-dir build/m4f      # the examples, under QEMU
# See arm-none-eabi.cmake for what it sets up, and docs/embedded.md.
# [snippet:m4f]
set(STATIC_ATTENTION_CORTEX_M_FLAGS -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard)
set(STATIC_ATTENTION_CORTEX_M_BOARD mps2-an386)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake")
# [/snippet]

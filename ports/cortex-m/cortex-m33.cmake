# SPDX-License-Identifier: BSL-1.0
# CMake toolchain file: Cortex-M33 (Armv8-M mainline) with the DSP extension and a single-precision
# FPU (FPv5-SP-D16), hard-float ABI; programs run in the secure state on QEMU's mps2-an505 board,
# linked for its secure aliases (mps2-an505.ld). Usage, from the repository root:
#   cmake --toolchain ports/cortex-m/cortex-m33.cmake -S . -B build/m33 -DCMAKE_BUILD_TYPE=MinSizeRel
#   cmake --build build/m33 && ctest --test-dir build/m33      # the examples, under QEMU
# See arm-none-eabi.cmake for what it sets up, and docs/embedded.md.
set(STATIC_ATTENTION_CORTEX_M_FLAGS -mcpu=cortex-m33 -mthumb -mfpu=fpv5-sp-d16 -mfloat-abi=hard)
set(STATIC_ATTENTION_CORTEX_M_BOARD mps2-an505)
set(STATIC_ATTENTION_CORTEX_M_LINKER_SCRIPT mps2-an505.ld)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake")

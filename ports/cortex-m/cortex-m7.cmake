# SPDX-License-Identifier: BSL-1.0
# CMake toolchain file: Cortex-M7 with the DSP extension and a double-precision FPU (FPv5-D16,
# which QEMU's cortex-m7 emulates), hard-float ABI; programs run on QEMU's mps2-an500 board, whose
# memory map is the an385's and an386's (mps2.ld). Usage, from the repository root:
#   cmake --toolchain ports/cortex-m/cortex-m7.cmake -S . -B build/m7 -DCMAKE_BUILD_TYPE=MinSizeRel
#   cmake --build build/m7 && ctest --test-dir build/m7        # the examples, under QEMU
# See arm-none-eabi.cmake for what it sets up, and docs/embedded.md.
set(STATIC_ATTENTION_CORTEX_M_FLAGS -mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard)
set(STATIC_ATTENTION_CORTEX_M_BOARD mps2-an500)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake")

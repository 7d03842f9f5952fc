# SPDX-License-Identifier: BSL-1.0
# CMake toolchain file: Cortex-M55 (Armv8.1-M mainline) with Helium (the M-profile vector
# extension, MVE, for integers and single-precision float), the DSP extension and an FPU with
# double precision (FPv5-D16), hard-float ABI; programs run in the secure state on QEMU's
# mps3-an547 board, linked with mps3-an547.ld. Usage, from the repository root:
#   cmake --toolchain ports/cortex-m/cortex-m55.cmake -S . -B build/m55 -DCMAKE_BUILD_TYPE=Release
#   cmake --build build/m55 && ctest --test-dir build/m55      # the examples, under QEMU
# -mcpu=cortex-m55 alone selects all of it (GCC 12 defines __ARM_FEATURE_MVE 3: integer and float).
# -fno-tree-vectorize: Helium's float instructions flush subnormals to zero (and return the
# default NaN), but GCC 12 treats them as IEEE arithmetic and vectorizes plain float loops with
# them, so a subnormal product or sum would lose the constant evaluator's bits. The library's own
# Helium kernels are intrinsics and assembly (unaffected) and check that no subnormal can arise.
# See arm-none-eabi.cmake for what it sets up, and docs/embedded.md.
set(STATIC_ATTENTION_CORTEX_M_FLAGS -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -fno-tree-vectorize)
set(STATIC_ATTENTION_CORTEX_M_BOARD mps3-an547)
set(STATIC_ATTENTION_CORTEX_M_LINKER_SCRIPT mps3-an547.ld)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake")

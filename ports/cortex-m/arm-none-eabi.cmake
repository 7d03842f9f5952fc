# SPDX-License-Identifier: BSL-1.0
# The part of the Cortex-M toolchain files shared by the boards; included by cortex-m4f.cmake,
# cortex-m3.cmake, cortex-m7.cmake and cortex-m33.cmake after they set
#   STATIC_ATTENTION_CORTEX_M_FLAGS  the -mcpu/-mfpu/-mfloat-abi flags, a list
#   STATIC_ATTENTION_CORTEX_M_BOARD  the QEMU machine their programs run on
#   STATIC_ATTENTION_CORTEX_M_LINKER_SCRIPT  optional: the linker script of this directory for the
#                                    board's memory map (default mps2.ld)
#
# Toolchain: Debian's gcc-arm-none-eabi with libstdc++-arm-none-eabi-newlib and
# libnewlib-arm-none-eabi (tools/install-deps.sh installs them). What it sets up:
#  - compilers and flags (per-function and per-object sections, so that --gc-sections keeps only
#    what a program uses);
#  - the link: mps2.ld, newlib with semihosting system calls (librdimon: stdout, stderr, files and
#    the exit status go to the host), and the start-up code of startup.c, added to every
#    executable of the project by mps2-project.cmake (no change to the project's CMakeLists);
#  - CMAKE_CROSSCOMPILING_EMULATOR: CTest runs each test executable under qemu-system-arm through
#    qemu-run.sh, so `ctest` works in the cross build as on the host;
#  - Boost (header-only) from the host, without the host's C library headers (mps2-project.cmake);
#  - a host build of the weight embedder (tools/embed_weights.cpp), which runs at build time.
# Options (cache variables):
#  - STATIC_ATTENTION_CORTEX_M_STARTUP (ON): link startup.c and mps2.ld into every executable;
#    OFF for your own board, whose start-up code and linker script you bring.
#  - STATIC_ATTENTION_CORTEX_M_NANO (OFF): newlib-nano (smaller printf, no float formatting unless
#    you link with -u _printf_float).

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# A bare-metal compiler cannot link a test program before the start-up code exists: CMake's
# compiler checks build a static library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(STATIC_ATTENTION_CORTEX_M_DIR "${CMAKE_CURRENT_LIST_DIR}")
list(JOIN STATIC_ATTENTION_CORTEX_M_FLAGS " " _sa_cpu_flags)
foreach(_sa_lang C CXX ASM)
  set(CMAKE_${_sa_lang}_FLAGS_INIT "${_sa_cpu_flags} -ffunction-sections -fdata-sections")
endforeach()

option(STATIC_ATTENTION_CORTEX_M_STARTUP "Link the mps2 start-up code and linker script into every executable" ON)
option(STATIC_ATTENTION_CORTEX_M_NANO "Link newlib-nano instead of newlib" OFF)
set(_sa_link_flags "${_sa_cpu_flags} -Wl,--gc-sections")
if(STATIC_ATTENTION_CORTEX_M_NANO)
  string(APPEND _sa_link_flags " --specs=nano.specs")
endif()
if(STATIC_ATTENTION_CORTEX_M_STARTUP)
  # rdimon.specs: newlib's semihosting system calls; mps2.specs, read after it: the start files
  # without rdimon's _start (startup.c's Reset_Handler replaces it).
  if(NOT STATIC_ATTENTION_CORTEX_M_LINKER_SCRIPT)
    set(STATIC_ATTENTION_CORTEX_M_LINKER_SCRIPT mps2.ld)
  endif()
  # -L: the scripts INCLUDE mps2-sections.ld from this directory.
  string(APPEND _sa_link_flags " -L \"${CMAKE_CURRENT_LIST_DIR}\""
                               " -T \"${CMAKE_CURRENT_LIST_DIR}/${STATIC_ATTENTION_CORTEX_M_LINKER_SCRIPT}\" --specs=rdimon.specs"
                               " --specs=\"${CMAKE_CURRENT_LIST_DIR}/mps2.specs\"")
else()
  string(APPEND _sa_link_flags " --specs=nosys.specs")
endif()
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_sa_link_flags}")

# CTest runs cross-compiled test executables through this, and so can you:
#   ports/cortex-m/qemu-run.sh --board mps2-an386 build/m4f/examples/embedded_attention
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/qemu-run.sh;--board;${STATIC_ATTENTION_CORTEX_M_BOARD}")

# Libraries and headers of the target only from the toolchain; programs (host tools) and CMake
# packages (Boost's, for its header-only target) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# Run at the end of each project() call, when the compilers are known: see mps2-project.cmake.
if(NOT CMAKE_PROJECT_INCLUDE)
  set(CMAKE_PROJECT_INCLUDE "${CMAKE_CURRENT_LIST_DIR}/mps2-project.cmake")
elseif(NOT CMAKE_PROJECT_INCLUDE STREQUAL "${CMAKE_CURRENT_LIST_DIR}/mps2-project.cmake")
  message(WARNING "CMAKE_PROJECT_INCLUDE is set (${CMAKE_PROJECT_INCLUDE}): include "
                  "${CMAKE_CURRENT_LIST_DIR}/mps2-project.cmake from it, or executables get no start-up code")
endif()

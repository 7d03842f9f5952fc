// SPDX-License-Identifier: BSL-1.0
/* Measuring on QEMU's mps2 boards (C and C++): instructions with SysTick, stack by painting.
 *
 * Instructions: run under `qemu-run.sh --icount` (-icount shift=0: one instruction per virtual
 * nanosecond). SysTick, on the processor clock (25 MHz on mps2-an385/an386/an500, 20 MHz on
 * mps2-an505, 32 MHz on mps3-an547), then advances once every 40 (50, 31.25) instructions; it
 * counts down from 2^24 - 1 and wraps after 671 M (839 M, 524 M) instructions.
 *   sa_systick_start();
 *   uint32_t t0 = sa_systick_now();  work();  uint32_t n = sa_systick_instructions(t0, sa_systick_now());
 * Without --icount the figures are ticks of QEMU's virtual clock, not instructions.
 *
 * Stack: sa_stack_paint() fills the stack from its limit (mps2.ld's __stack_limit) up to just
 * below the current frame with a pattern and returns the stack pointer; after the call being
 * measured, sa_stack_used(sp) finds the deepest word that changed: the bytes the call used,
 * return address and saved registers included. */
#ifndef STATIC_ATTENTION_PORTS_CORTEX_M_MEASURE_H
#define STATIC_ATTENTION_PORTS_CORTEX_M_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern uint32_t __stack_limit[];

#define SA_SYST_CSR (*(volatile uint32_t*)0xE000E010U)
#define SA_SYST_RVR (*(volatile uint32_t*)0xE000E014U)
#define SA_SYST_CVR (*(volatile uint32_t*)0xE000E018U)
#define SA_SCB_CPUID (*(volatile uint32_t*)0xE000ED00U)
#define SA_STACK_PAINT 0xA5A5A5A5U

/* The processor clock in MHz: 25 on mps2-an385, an386 and an500; 20 on mps2-an505, whose
 * Cortex-M33 has CPUID part number 0xD21; 32 on mps3-an547, whose Cortex-M55 has 0xD22. */
static inline uint32_t sa_processor_mhz(void) {
  const uint32_t part = (SA_SCB_CPUID >> 4) & 0xFFFU;
  return part == 0xD21U ? 20U : part == 0xD22U ? 32U : 25U;
}

/* SysTick: reload 2^24 - 1, processor clock, enabled, no interrupt. */
static inline void sa_systick_start(void) {
  SA_SYST_RVR = 0x00FFFFFFU;
  SA_SYST_CVR = 0U;
  SA_SYST_CSR = 5U;
}

static inline uint32_t sa_systick_now(void) { return SA_SYST_CVR; }

/* Instructions between two readings (it counts down; one wrap at most): 1000 / MHz a tick, to
 * within one tick (31.25 instructions a tick on mps3-an547). */
static inline uint32_t sa_systick_instructions(uint32_t before, uint32_t after) {
  return (uint32_t)((uint64_t)((before - after) & 0x00FFFFFFU) * 1000U / sa_processor_mhz());
}

static inline uintptr_t sa_stack_pointer(void) {
  uintptr_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

/* Paints the free stack, from its limit up to just below the stack pointer, and returns the
 * stack pointer: call it in the frame that then makes the call being measured. Always inlined,
 * so that it paints below that frame. */
static inline __attribute__((always_inline)) uintptr_t sa_stack_paint(void) {
  const uintptr_t sp = sa_stack_pointer();
  for (volatile uint32_t* p = __stack_limit; (uintptr_t)p < sp - 16U; ++p) {
    *p = SA_STACK_PAINT;
  }
  return sp;
}

/* Bytes of stack used below `sp`, the value sa_stack_paint() returned, since it returned. */
static inline size_t sa_stack_used(uintptr_t sp) {
  const volatile uint32_t* p = __stack_limit;
  while ((uintptr_t)p < sp && *p == SA_STACK_PAINT) {
    ++p;
  }
  return (size_t)(sp - (uintptr_t)p);
}

#ifdef __cplusplus
}
#endif

#endif

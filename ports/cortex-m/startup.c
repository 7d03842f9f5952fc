// SPDX-License-Identifier: BSL-1.0
/* Minimal start-up for QEMU's mps2-an385 (Cortex-M3), mps2-an386 (Cortex-M4F), mps2-an500
 * (Cortex-M7), mps2-an505 (Cortex-M33, Armv8-M mainline) and mps3-an547 (Cortex-M55, Armv8.1-M
 * with Helium) boards (the last two run in the secure state, where the core boots, and need nothing
 * more), used with mps2.ld, mps2-an505.ld or mps3-an547.ld and the toolchain files of this
 * directory (see docs/embedded.md):
 *
 *   1. the vector table: the initial stack pointer and the reset and fault handlers;
 *   2. Reset_Handler: enables the FPU and, on the M55, the vector extension (when the build has
 *      them) before any floating-point or vector instruction can run, copies .data from flash, zeroes .bss, opens the semihosting
 *      console, runs the static initialisers (__libc_init_array), then exit(main(argc, argv)),
 *      argv being the semihosting command line;
 *   3. fault handlers that report the fault through semihosting and end QEMU with status 3,
 *      so a crash is a failed test, not a hang.
 *
 * System calls (write, exit, open, sbrk...) come from newlib's librdimon (--specs=rdimon.specs),
 * which forwards them to the host through semihosting; QEMU must run with -semihosting
 * (ports/cortex-m/qemu-run.sh). Written in C: C++ may not call main. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* From mps2.ld. */
extern uint32_t __stack_top[];
extern uint32_t __stack_limit[];
extern uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];

/* From newlib and librdimon. */
extern void initialise_monitor_handles(void);
extern void __libc_init_array(void);
extern char* __heap_limit;

int main(int argc, char** argv);

void Reset_Handler(void) __attribute__((noreturn));
void sa_fault_handler(void);

static int semihost(int operation, const void* argument) {
  register int r0 __asm__("r0") = operation;
  register const void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

/* Semihosting SYS_EXIT_EXTENDED (0x20) with ADP_Stopped_ApplicationExit: QEMU exits with status. */
static void __attribute__((noreturn)) semihost_exit(int status) {
  const uint32_t block[2] = {0x20026U, (uint32_t)status};
  for (;;) {
    semihost(0x20, block);
  }
}

/* stat() for semihosting. librdimon's (weak) says "character device" for every path, so code that
 * asks whether a file is regular (std::filesystem::is_regular_file, before reading an .npz from its
 * end) would refuse every file. A path the host can open is reported as a regular file of the
 * length SYS_FLEN gives; ":tt", the console, as a character device. (Semihosting cannot tell a
 * directory from a file.) */
int _stat(const char* path, struct stat* st) {
  memset(st, 0, sizeof *st);
  if (strcmp(path, ":tt") == 0) {
    st->st_mode = S_IFCHR | 0666;
    return 0;
  }
  const struct {
    const char* name;
    uint32_t mode; /* 1: "rb" */
    uint32_t length;
  } open_block = {path, 1U, (uint32_t)strlen(path)};
  const int handle = semihost(0x01, &open_block); /* SYS_OPEN */
  if (handle == -1) {
    errno = ENOENT;
    return -1;
  }
  const int length = semihost(0x0c, &handle); /* SYS_FLEN */
  semihost(0x02, &handle);                    /* SYS_CLOSE */
  st->st_mode = S_IFREG | 0444;
  st->st_size = length < 0 ? 0 : length;
  st->st_blksize = 1024;
  return 0;
}

/* argv from the semihosting command line (SYS_GET_CMDLINE: the words qemu-run.sh passed, space
 * separated); {"program"} if there is none. */
static char** command_line(int* argc) {
  static char text[256];
  static char* argv[17];
  struct {
    char* buffer;
    uint32_t length;
  } block = {text, sizeof text - 1};
  if (semihost(0x15, &block) != 0 || text[0] == '\0') {
    static char fallback[] = "program";
    argv[0] = fallback;
    *argc = 1;
    return argv;
  }
  int n = 0;
  for (char* p = text; *p != '\0' && n < 16;) {
    while (*p == ' ') {
      *p++ = '\0';
    }
    if (*p == '\0') {
      break;
    }
    argv[n++] = p;
    while (*p != ' ' && *p != '\0') {
      ++p;
    }
  }
  argv[n] = 0;
  *argc = n;
  return argv;
}

/* The C part of the reset handler: kept out of line so that nothing it does can be scheduled
 * before the FPU is on. */
static void __attribute__((noreturn, noinline)) start_c(void) {
  const uint32_t* src = __data_load;
  for (uint32_t* dst = __data_start; dst < __data_end; ++dst, ++src) {
    *dst = *src;
  }
  for (uint32_t* dst = __bss_start__; dst < __bss_end__; ++dst) {
    *dst = 0;
  }
  __heap_limit = (char*)__stack_limit; /* malloc (printf's buffers) stays below the stack */
  initialise_monitor_handles();
  __libc_init_array();
  int argc = 0;
  char** argv = command_line(&argc);
  exit(main(argc, argv));
}

void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE) /* an FPU (hard or softfp ABI), or MVE */
  /* CPACR: full access to CP10 and CP11 (the FPU; on Armv8.1-M also MVE), then make it take effect. */
  *(volatile uint32_t*)0xE000ED88U |= 0xFU << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  start_c();
}

void sa_fault_handler(void) {
  uint32_t ipsr;
  __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
  static const char* const names[] = {"thread",       "reset",       "NMI",      "HardFault", "MemManage", "BusFault",
                                      "UsageFault",   "SecureFault", "reserved", "reserved",  "reserved",  "SVCall",
                                      "DebugMonitor", "reserved",    "PendSV",   "SysTick"};
  semihost(0x04, "\nstartup.c: unexpected exception: "); /* SYS_WRITE0 */
  semihost(0x04, ipsr < 16 ? names[ipsr] : "external interrupt");
  semihost(0x04, " (stack overflow, bad address, or a handler not installed)\n");
  semihost_exit(3);
}

/* Every handler but reset is weak: a program may define its own (for example SysTick_Handler). */
#define SA_WEAK_HANDLER(name) void name(void) __attribute__((weak, alias("sa_fault_handler")))
SA_WEAK_HANDLER(NMI_Handler);
SA_WEAK_HANDLER(HardFault_Handler);
SA_WEAK_HANDLER(MemManage_Handler);
SA_WEAK_HANDLER(BusFault_Handler);
SA_WEAK_HANDLER(UsageFault_Handler);
SA_WEAK_HANDLER(SecureFault_Handler); /* Armv8-M with the Security Extension; reserved on Armv7-M */
SA_WEAK_HANDLER(SVC_Handler);
SA_WEAK_HANDLER(DebugMon_Handler);
SA_WEAK_HANDLER(PendSV_Handler);
SA_WEAK_HANDLER(SysTick_Handler);

typedef void (*sa_handler)(void);
struct sa_vector_table {
  uint32_t* initial_stack;
  sa_handler handlers[15];
};

__attribute__((section(".vectors"), used)) const struct sa_vector_table sa_vectors = {
    __stack_top,
    {Reset_Handler, NMI_Handler, HardFault_Handler, MemManage_Handler, BusFault_Handler, UsageFault_Handler,
     SecureFault_Handler, 0, 0, 0, SVC_Handler, DebugMon_Handler, 0, PendSV_Handler, SysTick_Handler}};

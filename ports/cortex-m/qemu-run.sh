#!/bin/sh
# SPDX-License-Identifier: BSL-1.0
# Runs a program built with ports/cortex-m's toolchain files on QEMU's mps2 or mps3 board, with
# semihosting: the program's stdout and stderr are this script's, and so is its exit status.
#   qemu-run.sh [--board mps2-an386|mps2-an385|mps2-an500|mps2-an505|mps3-an547] [--icount] [--timeout SECONDS] program [args...]
# --board    mps2-an386 (Cortex-M4F, the default), mps2-an385 (Cortex-M3), mps2-an500 (Cortex-M7)
#            mps2-an505 (Cortex-M33, secure state) or mps3-an547 (Cortex-M55, secure state)
# --icount   deterministic timing: one instruction per virtual nanosecond (-icount shift=0), so
#            SysTick (25 MHz on the mps2 boards but mps2-an505, 20 MHz; 32 MHz on mps3-an547)
#            advances by one every 40 (50; 31.25) instructions
# --timeout  end QEMU after that many seconds (default 300; 0: none), status 124
# Exit status 77 (and a message saying so) when qemu-system-arm is not installed: CTest reads it
# as "skipped" where the test sets SKIP_RETURN_CODE 77. QEMU_SYSTEM_ARM overrides the emulator.
set -eu
board=mps2-an386
icount=""
seconds=300
while [ $# -gt 0 ]; do
  case $1 in
    --board) board=$2; shift 2 ;;
    --board=*) board=${1#--board=}; shift ;;
    --icount) icount="-icount shift=0"; shift ;;
    --timeout) seconds=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "qemu-run.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ]; then
  echo "usage: qemu-run.sh [--board mps2-an386|mps2-an385|mps2-an500|mps2-an505|mps3-an547] [--icount] [--timeout s] program [args...]" >&2
  exit 2
fi
case $board in
  mps2-an386) cpu=cortex-m4 ;;
  mps2-an385) cpu=cortex-m3 ;;
  mps2-an500) cpu=cortex-m7 ;;
  mps2-an505) cpu=cortex-m33 ;;
  mps3-an547) cpu=cortex-m55 ;;
  *) echo "qemu-run.sh: unknown board $board (mps2-an386, mps2-an385, mps2-an500, mps2-an505 or mps3-an547)" >&2; exit 2 ;;
esac
qemu=${QEMU_SYSTEM_ARM:-qemu-system-arm}
if ! command -v "$qemu" >/dev/null 2>&1; then
  echo "SKIPPED: $qemu not found; install qemu-system-arm (tools/install-deps.sh) to run Cortex-M programs" >&2
  exit 77
fi
program=$1
shift
# The command line the program sees through semihosting (commas doubled, as QEMU's options need).
cmdline="arg=$(printf '%s' "$program" | sed 's/,/,,/g')"
for a in "$@"; do
  cmdline="$cmdline,arg=$(printf '%s' "$a" | sed 's/,/,,/g')"
done
run_timeout=""
if [ "$seconds" != 0 ] && command -v timeout >/dev/null 2>&1; then
  run_timeout="timeout $seconds"
fi
# shellcheck disable=SC2086 # $run_timeout and $icount are lists of words
exec $run_timeout "$qemu" -machine "$board" -cpu "$cpu" $icount -nographic -monitor none -serial null \
  -semihosting-config "enable=on,target=native,$cmdline" -kernel "$program"

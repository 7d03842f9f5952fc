#!/bin/sh
# SPDX-License-Identifier: BSL-1.0
# Runs an AArch64 Linux program under qemu-user with the target's shared libraries:
#   qemu-run.sh program [args...]
# Exit status 77 (and a message saying so) when qemu-aarch64 is not installed: CTest reads it as
# "skipped" where the test sets SKIP_RETURN_CODE 77. QEMU_AARCH64 overrides the emulator,
# QEMU_LD_PREFIX the library root (default /usr/aarch64-linux-gnu).
set -eu
qemu=${QEMU_AARCH64:-qemu-aarch64}
if ! command -v "$qemu" >/dev/null 2>&1; then
  echo "SKIPPED: $qemu not found; install qemu-user (tools/install-deps.sh) to run AArch64 programs" >&2
  exit 77
fi
exec "$qemu" -L "${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}" "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Installs what building, testing and benchmarking static_attention needs on Debian 12.
# Skips apt-get entirely when everything is already there.
# Usage: tools/install-deps.sh [demo]   (demo: only what building the demo needs)
set -euo pipefail
if [[ "${1:-}" == demo ]]; then
  packages=(cmake ninja-build g++ libboost-dev)
else
packages=(
  cmake ninja-build g++ clang-16 libclang-rt-16-dev  # compilers; the fuzzer runtime
  libboost-dev doctest-dev                           # Boost.Hana, doctest
  libeigen3-dev libbenchmark-dev                     # benchmarks: the peer and the harness
  libfmt-dev                                         # optional {fmt} formatter, tested when present
  python3-numpy                                      # reference generators (tests need none at run time)
  libxml2-utils chromium imagemagick fonts-dejavu-core  # heatmap checks: xmllint, a browser, PNG colours, a font
  # device tests (tests/device, tests/aarch64; ports/): Cortex-M cross toolchain with newlib and
  # libstdc++, QEMU's mps2 boards with semihosting; AArch64 cross compiler and qemu-user
  gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib libnewlib-arm-none-eabi qemu-system-arm
  g++-aarch64-linux-gnu qemu-user
)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  # No fsync per file while unpacking (a fresh CI machine: nothing to lose if it crashes).
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-unsafe-io "${missing[@]}"
fi

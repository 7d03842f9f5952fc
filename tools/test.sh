#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Quick start, command 2: every test, with GCC 12 and Clang 16, in Debug, in Release (-O3, and
# -O3 -march=native: the builds users make), and under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
# Benchmarks: built and smoke-run (a few iterations each), never timed here.
echo "=== benchmarks (smoke run)"
cmake --preset bench --fresh >/dev/null
cmake --build --preset bench
for b in build/bench/bench/bench_*; do
  [[ -f "$b" && -x "$b" ]] || continue
  "$b" --benchmark_min_time=0.001 --benchmark_repetitions=1 >/dev/null
done
echo "benchmarks ran"
for preset in gcc clang asan gcc-release gcc-native clang-release clang-native; do
  echo "=== preset ${preset}"
  cmake --workflow --preset "${preset}" --fresh
done

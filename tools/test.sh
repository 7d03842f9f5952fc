#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Quick start, command 2: every test, with GCC 12 and Clang 16, in Debug, in Release (-O3, and
# -O3 -march=native: the builds users make), and under ASan+UBSan. Clang's Debug build is the
# sanitized one (clang-asan: every test, the compile-only ones too), one build where a plain
# Debug build and a run-time-only sanitizer build took two; the plain `clang` and `asan` presets
# remain for use by hand. To keep the command within 40 minutes on 2 cores: the Debug builds carry
# no debug info (-g0: the same code, less to write), clang-asan runs the GPT-2 124M book, sampling
# and chapter-example tests only built (they run in the five other presets; gpt.gpt124m and
# threads.gpt124m still run sanitized), clang-release leaves out the file-format and text
# folders (they run under Clang in clang-asan, and at -O3 in gcc-release), the three ISA presets
# leave out gpt.state_dict (the .npz loader's test, as those folders), and the two checks that
# use no compiler of the build's own (docs.in_sync, single_include.up_to_date) run in gcc alone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
# The gcc-native preset also builds the benchmarks and smoke-runs them (a few iterations each,
# never timed).
for preset in gcc clang-asan gcc-release gcc-native clang-release clang-native; do
  echo "=== preset ${preset}"
  cmake --workflow --preset "${preset}" --fresh
done

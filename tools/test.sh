#!/usr/bin/env bash
# Quick start, command 2: every test, with GCC 12, with Clang 16, and under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
for preset in gcc clang asan; do
  echo "=== preset ${preset}"
  cmake --workflow --preset "${preset}" --fresh
done

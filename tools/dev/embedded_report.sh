#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The numbers of docs/embedded.md, from a build of examples/embedded_attention (-Os, no exceptions,
# no RTTI, -fstack-usage): binary size, the largest stack frames, the heap, where the model lives.
# Usage: tools/dev/embedded_report.sh [build-dir]   (default build/gcc; build target embedded_attention first)
set -euo pipefail
build="${1:-build/gcc}"
exe="$build/examples/embedded_attention"
object="$build/examples/CMakeFiles/embedded_attention_object.dir/embedded_attention.cpp.o"
su="${object%.o}.su"
[[ -f "$su" ]] || su="$(dirname "$object")/embedded_attention.su"  # Clang names it after the source
for f in "$exe" "$object" "$su"; do
  [[ -f "$f" ]] || { echo "embedded_report: $f not found: cmake --build $build --target embedded_attention" >&2; exit 1; }
done
compiler="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
echo "== $("$compiler" --version | head -n 1)"

# [snippet:size]
echo "== binary size (bytes; text includes .rodata, so the model's weights)"
size "$exe"
echo "== the model and the embedded matrices in the object file (bytes, section)"
objdump -t -w "$object" | awk '$3 == "O" { print $5, $4, $6 }' | c++filt |
  while read -r bytes section name; do printf '%6d %s %s\n' "$((16#$bytes))" "$section" "$name"; done
# [/snippet]

# [snippet:stack]
echo "== largest stack frames (-fstack-usage: bytes, static = no alloca and no VLA)"
awk -F'\t' '{ print $2 "\t" $3 "\t" $1 }' "$su" | sort -rn | head -n 6 | c++filt |
  sed -E 's/^([0-9]+)\t([a-z,]+)\t.*:[0-9]+:([0-9]+:)?/\1 \2 /' | cut -c1-110
# [/snippet]

# [snippet:heap]
echo "== external symbols of the object file (no operator new, malloc, __cxa_throw or std::cout)"
nm -u "$object" | awk '{ print $2 }'
echo "== shared libraries the program needs"
readelf -d -W "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
if command -v valgrind > /dev/null; then
  echo "== whole-process heap and peak stack under valgrind (C runtime and printf included)"
  valgrind "$exe" 2>&1 | grep -o 'total heap usage.*' || true
  massif="$(mktemp)"
  valgrind --tool=massif --stacks=yes --massif-out-file="$massif" "$exe" > /dev/null 2>&1
  echo "peak stack: $(sed -n 's/^mem_stacks_B=//p' "$massif" | sort -n | tail -n 1) bytes"
  rm -f "$massif"
fi
# [/snippet]

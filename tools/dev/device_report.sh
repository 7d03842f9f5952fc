#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Prints the figures of docs/embedded.md's "On the device" section for the device tests' builds
# of a host build configured with -DSTATIC_ATTENTION_DEVICE_TESTS=ON (Cortex-M4F on mps2-an386 at
# -O3, Cortex-M3 on mps2-an385 at -Os), or for builds of tests/device/target made by hand:
#   tools/dev/device_report.sh build/gcc
#   cmake --toolchain ports/cortex-m/cortex-m4f.cmake -S tests/device/target -B build/m4f-os \
#         -DCMAKE_BUILD_TYPE=MinSizeRel && cmake --build build/m4f-os && tools/dev/device_report.sh build/m4f-os
# - sizes (.text, .rodata, .data, .bss) of three programs: start-up code and C library only
#   (size_empty), plus the measured model's forward pass (size_forward), plus printf (size_printf);
# - the library's own code (the .text of the forward pass's object that the link kept) and the
#   model (.rodata), and that object's .data and .bss;
# - stack: -fstack-usage of the forward pass and of the plain-C version, then painted, and
#   instructions per forward pass (qemu-run.sh --icount), from device_measure.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: tools/dev/device_report.sh <host-build-dir> | <device-build-dir>..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
sections() {  # <elf>: .text .rodata .data .bss in bytes, from size -A
  arm-none-eabi-size -A "$1" | awk '
    $1 == ".text" { t = $2 } $1 == ".rodata" { r = $2 } $1 == ".data" { d = $2 } $1 == ".bss" { b = $2 }
    $1 ~ /^\.(ARM\.exidx|init_array|ARM\.extab)$/ { r += $2 }
    END { printf "%8d %8d %6d %6d", t, r, d, b }'
}
# A host build's tests/device/<board> builds, or device builds (tests/device/target) given directly.
dirs=("$@")
if [[ $# -eq 1 && -d $1/tests/device ]]; then
  dirs=()
  for b in m4f m3 m7 m33 m55; do [[ -d $1/tests/device/$b ]] && dirs+=("$1/tests/device/$b"); done
fi
for dir in "${dirs[@]}"; do
  cache=$dir/CMakeCache.txt
  toolchain=$(sed -n 's/^CMAKE_TOOLCHAIN_FILE:[A-Z]*=//p' "$cache" 2>/dev/null)
  build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache" 2>/dev/null)
  case $toolchain in
    *cortex-m4f.cmake) name="Cortex-M4F, mps2-an386"; machine=mps2-an386 ;;
    *cortex-m3.cmake) name="Cortex-M3, mps2-an385"; machine=mps2-an385 ;;
    *cortex-m7.cmake) name="Cortex-M7, mps2-an500"; machine=mps2-an500 ;;
    *cortex-m33.cmake) name="Cortex-M33, mps2-an505"; machine=mps2-an505 ;;
    *cortex-m55.cmake) name="Cortex-M55, mps3-an547"; machine=mps3-an547 ;;
    *) echo "$dir: not a device build of tests/device/target (toolchain: ${toolchain:-none})" >&2; exit 1 ;;
  esac
  [[ -x $dir/size_forward ]] || { echo "$dir: not built (configure with -DSTATIC_ATTENTION_DEVICE_TESTS=ON)" >&2; exit 1; }
  echo "=== $name, CMAKE_BUILD_TYPE ${build_type:-none} ($dir)"
  echo "== image sections (bytes)        .text  .rodata  .data   .bss"
  printf '%-30s %s\n' "start-up and C library only" "$(sections "$dir/size_empty")"
  printf '%-30s %s\n' "+ forward pass, no printf" "$(sections "$dir/size_forward")"
  printf '%-30s %s\n' "+ printf" "$(sections "$dir/size_printf")"
  object=$(find "$dir/CMakeFiles/measure_library.dir" -name '*.obj' | head -n 1)
  # The forward pass's functions as linked: the object's defined text symbols, sized in the image.
  arm-none-eabi-nm --defined-only "$object" | awk '$2 ~ /^[TtWw]$/ { print $3 }' | sort -u >"$dir/library_symbols.txt"
  code=$(arm-none-eabi-nm -S -t d --defined-only "$dir/size_forward" |
    awk 'NR == FNR { want[$1] = 1; next } ($4 in want) && $3 ~ /^[TtWw]$/ { s += $2 } END { print s + 0 }' \
      "$dir/library_symbols.txt" -)
  model=$(arm-none-eabi-nm -S -t d -C --defined-only "$dir/size_forward" | awk '$4 == "measure::model" { print $2 + 0 }')
  input=$(arm-none-eabi-nm -S -t d -C --defined-only "$dir/size_forward" | awk '$4 == "device_weights::inputs" { print $2 + 0 }')
  object_data=$(arm-none-eabi-size -A "$object" | awk '$1 ~ /^\.(data|bss)/ { s += $2 } END { print s + 0 }')
  echo "== the library's code and the model"
  echo "forward pass (.text, the functions of library_forward.cpp kept by the link): $code bytes"
  plain=$(arm-none-eabi-nm -S -t d --defined-only "$dir/device_measure" | awk '$4 == "plain_forward" { print $2 + 0 }')
  echo "model (.rodata): ${model:-?} bytes; the 8 x 16 input (.rodata): ${input:-?} bytes; .data + .bss of the object: $object_data bytes"
  echo "the plain-C version (.text): plain_forward ${plain:-?} bytes, and the C library's expf"
  echo "functions (bytes):"
  arm-none-eabi-nm -S -t d --defined-only "$dir/size_forward" |
    awk 'NR == FNR { want[$1] = 1; next } ($4 in want) && $3 ~ /^[TtWw]$/ { print $2 + 0, $4 }' "$dir/library_symbols.txt" - |
    sort -rn | while read -r bytes symbol; do
      printf '  %6d  %s\n' "$bytes" "$(echo "$symbol" | c++filt | cut -c1-100)"
    done
  echo "== stack, -fstack-usage (bytes, static = fixed frame)"
  find "$dir/CMakeFiles/measure_library.dir" "$dir/CMakeFiles/measure_plain.dir" -name '*.su' -exec cat {} + |
    awk -F'\t' '{ f = $1; sub(/^[^:]*:[0-9]+:[0-9]+:/, "", f); printf "  %6d %-7s %s\n", $2, $3, substr(f, 1, 100) }' |
    sort -rn
  echo "== measured (qemu-run.sh --icount; stack by painting)"
  "$root/ports/cortex-m/qemu-run.sh" --board $machine --icount "$dir/device_measure"
  echo
done

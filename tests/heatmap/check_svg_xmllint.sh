#!/bin/sh
# SPDX-License-Identifier: BSL-1.0
# CTest: the SVG that write_heatmap_svg writes is well-formed XML (xmllint --noout).
# Usage: check_svg_xmllint.sh <write_heatmap_svg> <work dir>. Exit 77 (skipped) without xmllint.
set -eu
writer=$1
dir=$2
if ! command -v xmllint >/dev/null 2>&1; then
  echo "SKIP: xmllint not found (Debian: apt-get install libxml2-utils)"
  exit 77
fi
mkdir -p "$dir"
svg="$dir/heatmap_xmllint.svg"
"$writer" "$svg"
xmllint --noout "$svg"
echo "xmllint: $svg is well-formed"

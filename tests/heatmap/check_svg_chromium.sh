#!/bin/sh
# SPDX-License-Identifier: BSL-1.0
# CTest: headless Chromium renders the SVG that write_heatmap_svg writes, and the picture is not
# blank: it has many colours, among them both ends of the colour scale (the largest weight's cell
# is #fde725 and the smallest's #440154).
# Usage: check_svg_chromium.sh <write_heatmap_svg> <work dir>.
# Exit 77 (skipped) without chromium or ImageMagick.
set -eu
writer=$1
dir=$2
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ]; then
  echo "SKIP: chromium not found (Debian: apt-get install chromium)"
  exit 77
fi
if ! command -v convert >/dev/null 2>&1; then
  echo "SKIP: ImageMagick's convert not found (Debian: apt-get install imagemagick)"
  exit 77
fi
mkdir -p "$dir"
svg="$dir/heatmap_chromium.svg"
png="$dir/heatmap_chromium.png"
rm -f "$png"
"$writer" "$svg"
# A fresh profile each run, and no network, sync or updates: the test must be hermetic.
profile=$(mktemp -d "${TMPDIR:-/tmp}/sa-chromium.XXXXXX")
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --screenshot="$png" --window-size=640,560 "file://$svg" \
  >"$dir/chromium.log" 2>&1 || { cat "$dir/chromium.log"; exit 1; }
if [ ! -s "$png" ]; then
  echo "FAIL: chromium wrote no screenshot"; cat "$dir/chromium.log"; exit 1
fi
colours=$(convert "$png" -format %k info:)
histogram=$(convert "$png" -format %c histogram:info:)
echo "$png: $colours distinct colours"
if [ "$colours" -lt 16 ]; then
  echo "FAIL: the screenshot looks blank ($colours colours)"; exit 1
fi
for colour in '#FDE725' '#440154'; do
  if ! printf '%s\n' "$histogram" | grep -qi "$colour"; then
    echo "FAIL: no pixel of $colour, an end of the colour scale"; exit 1
  fi
done
echo "chromium: the heatmap rendered"

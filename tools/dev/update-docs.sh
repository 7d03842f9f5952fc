#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Rewrites the code and diagnostics quoted in the README and docs/ from their sources (the
# docs.in_sync and docs.outputs tests fail until this is run after a change to a quoted file).
# Usage: tools/dev/update-docs.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
docs="README.md;$(ls docs/*.md | tr '\n' ';')"
# With a build directory (default build/gcc), program output quoted in the docs is refreshed too.
examples="${1:-build/gcc}/examples"
extra=()
[[ -d "$examples" ]] && extra=("-DEXAMPLES_DIR=$examples")
cmake -DROOT=. "-DDOCS=${docs%;}" "${extra[@]}" -DFIX=ON -P cmake/CheckDocs.cmake

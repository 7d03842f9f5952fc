#!/usr/bin/env bash
# Rewrites the code and diagnostics quoted in the README and docs/ from their sources (the
# docs.in_sync test fails until this is run after a change to a quoted file).
set -euo pipefail
cd "$(dirname "$0")/.."
docs="README.md;$(ls docs/*.md | tr '\n' ';')"
cmake -DROOT=. "-DDOCS=${docs%;}" -DFIX=ON -P cmake/CheckDocs.cmake

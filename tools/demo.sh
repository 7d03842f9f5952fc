#!/usr/bin/env bash
# Quick start, command 1: install dependencies, build the chapter demo, run it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh demo
cmake --preset demo >/dev/null
cmake --build --preset demo
./build/demo/examples/chapter3

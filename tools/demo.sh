#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Quick start, command 1: install dependencies, build the chapter demo, run it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh demo
cmake --preset demo >/dev/null
cmake --build --preset demo
./build/demo/examples/chapter3
# Chapter 4's GPT-2 124M, untrained, from seed 123 (650 MB, a few seconds): "Hello, I am" continued
# as the book prints it, ids and text.
./build/demo/examples/chapter4 --gpt2 | tail -2

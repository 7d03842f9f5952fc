# SPDX-License-Identifier: BSL-1.0
# Examples not built for the mps2 boards (4 MiB of RAM): chapter4 and gpt2 keep GPT-2 124M (650 MB) in
# static storage. Read by CMakeLists.txt (no device test) and target/CMakeLists.txt (not built).
set(SA_DEVICE_HOST_ONLY_EXAMPLES chapter4 gpt2)

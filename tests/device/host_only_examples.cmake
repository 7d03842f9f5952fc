# SPDX-License-Identifier: BSL-1.0
# Examples not built for the mps2 boards (4 MiB of RAM): chapter4 and gpt2 keep GPT-2 124M (650 MB) in
# static storage. Read by CMakeLists.txt (no device test) and target/CMakeLists.txt (not built).
set(SA_DEVICE_HOST_ONLY_EXAMPLES chapter4 gpt2)
# Examples run on one board only (the M7, the fastest under QEMU): verify_next_token certifies a
# tiny GPT over an input set, 15-75 s of emulation a board (the other boards run its kernels in
# the device cases). Built for every board all the same.
set(SA_DEVICE_ONE_BOARD_EXAMPLES verify_next_token)
set(SA_DEVICE_ONE_BOARD m7)

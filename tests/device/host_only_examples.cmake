# SPDX-License-Identifier: BSL-1.0
# Examples not built for the mps2 boards (4 MiB of RAM): chapter4 and gpt2 keep GPT-2 124M (650 MB) in
# static storage. Read by CMakeLists.txt (no device test) and target/CMakeLists.txt (not built).
set(SA_DEVICE_HOST_ONLY_EXAMPLES chapter4 gpt2)
# The examples run on two boards: the M4F (FPU) and the M55 (Helium). The M3 (floating point in
# software), M7 and M33 run the device cases, whose kernels and math are the examples' (the M3's
# software float among them), and build only embedded_attention, for their symbol check.
# Building every example for five boards took a tenth of the test command's time.
set(SA_DEVICE_EXAMPLE_BOARDS m4f m55)
# Examples run on one board only, the M7, whatever the list above says: verify_next_token
# certifies a tiny GPT over an input set in double, 17 s of emulation on the M7's double FPU
# and 115 s on the M4F's soft double (the other boards run its kernels in the device cases).
set(SA_DEVICE_ONE_BOARD_EXAMPLES verify_next_token)
set(SA_DEVICE_ONE_BOARD m7)

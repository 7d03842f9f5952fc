# SPDX-License-Identifier: BSL-1.0
# Developer-only warning set: warnings are errors on GCC and Clang alike.
add_library(static_attention_warnings INTERFACE)
target_compile_options(static_attention_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Werror)

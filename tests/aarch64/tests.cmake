# SPDX-License-Identifier: BSL-1.0
# The tests built for AArch64 (read by CMakeLists.txt, the host side, and target/CMakeLists.txt):
# <name>=<source under tests/>. A subset of the host suite, chosen for the kernels' 128-bit NEON
# path and the same-bits promise: matmul on every shape with vector tails (1, 3, 5, 17, 33, 65),
# softmax, the attention modules against torch, the math functions, the GPT, and every same-bits
# test (constant evaluator vs run time, bit for bit).
set(SA_AARCH64_TESTS
  same_bits.matmul=same_bits/matmul_same_bits.cpp
  same_bits.attention=same_bits/attention_same_bits.cpp
  same_bits.elementwise=same_bits/elementwise_same_bits.cpp
  core.matmul=core/matmul_test.cpp
  softmax.stable=softmax/softmax_test.cpp
  attention.chapter=attention/chapter_test.cpp
  attention.random_shapes=attention/random_shapes_test.cpp
  attention.causal=attention/causal_test.cpp
  attention.multi_head=attention/multi_head_test.cpp
  math.same_bits=math/same_bits.cpp
  math.special_values=math/special_values.cpp
  math.reference=math/reference.cpp
  gpt.layer_norm=gpt/layer_norm_test.cpp
  gpt.gelu=gpt/gelu_test.cpp
  gpt.tiny_gpt=gpt/tiny_gpt_test.cpp
  gpt.kv_cache=gpt/kv_cache_test.cpp)

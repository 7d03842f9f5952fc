// SPDX-License-Identifier: BSL-1.0
// d_out = 5 cannot be split into 2 heads.
// expect: error: static assertion failed.*requires d_out % num_heads == 0
// expect: d_out_divisible_by_num_heads<5(UL)?, 2(UL)?>
#include <static_attention/nn/multi_head_attention.hpp>

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr static_attention::multi_head_attention<float, 3, 4, 2> mha{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr static_attention::multi_head_attention<float, 3, 5, 2> mha{};
  // [/snippet]
#endif
  return static_cast<int>(mha.head_dim);
}

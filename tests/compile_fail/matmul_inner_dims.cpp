// SPDX-License-Identifier: BSL-1.0
// matmul of two 6x3 matrices: the inner dimensions differ (3 != 6).
// expect: error: static assertion failed.*matmul\(a, b\) requires cols\(a\) == rows\(b\)
// expect: inner_dims_match<(static_attention::)?shape<6, 3>, (static_attention::)?shape<6, 3> ?>
// expect: did you mean matmul\(a, transpose\(b\)\)\? For the element-wise product use a \* b
#include <static_attention/core/matmul.hpp>

int main() {
  constexpr static_attention::matrix<float, 6, 3> inputs{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto attn_scores = static_attention::matmul(inputs, static_attention::transpose(inputs));
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto attn_scores = static_attention::matmul(inputs, inputs);  // (6x3) . (6x3)
                                                                          // [/snippet]
#endif
  return static_cast<int>(attn_scores(0, 0));
}

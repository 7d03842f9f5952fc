// SPDX-License-Identifier: BSL-1.0
// out_proj.bias given as a 2x3 matrix where a 1 x d_out row is needed.
// expect: error: static assertion failed.*the bias is a 1 x d_out row \(nn.Linear's bias\)
// expect: weight_shape_matches<(static_attention::)?shape<2, 3>, (static_attention::)?shape<1, 2> ?>
#include <static_attention/nn/multi_head_attention.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 2, 3> w{};
  constexpr sa::matrix<float, 2, 2> w_out{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 1, 2> b_out{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 2, 3> b_out{};
  // [/snippet]
#endif
  constexpr auto mha = sa::multi_head_attention<float, 3, 2, 2>::from_linear(w, w, w, w_out, b_out);
  return static_cast<int>(mha.b_out(0, 0));
}

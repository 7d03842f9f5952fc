// SPDX-License-Identifier: BSL-1.0
// nn.Linear-layout weights (d_out x d_in) given to the x @ W constructor.
// expect: error: static assertion failed.*takes d_in x d_out weights \(x @ W\). these are d_out x d_in, nn.Linear's
// layout: use from_linear expect: weight_shape_matches<(static_attention::)?shape<2, 3>, (static_attention::)?shape<3,
// 2> ?>
#include <static_attention/nn/self_attention.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 2, 3> w{};  // as torch's nn.Linear(3, 2).weight
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto attn = sa::self_attention<float, 3, 2>::from_linear(w, w, w);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::self_attention<float, 3, 2> attn{w, w, w};
  // [/snippet]
#endif
  return static_cast<int>(attn.W_query(0, 0));
}

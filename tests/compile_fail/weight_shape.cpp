// SPDX-License-Identifier: BSL-1.0
// A 4x2 weight for a module with d_in = 3, d_out = 2.
// expect: error: static assertion failed.*takes d_in x d_out weights \(x @ W\)
// expect: weight_shape_matches<(static_attention::)?shape<4, 2>, (static_attention::)?shape<3, 2> ?>
#include <static_attention/nn/causal_attention.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 3, 2> w{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 3, 2> w_key{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 4, 2> w_key{};
  // [/snippet]
#endif
  constexpr sa::causal_attention<float, 3, 2> attn{w, w_key, w};
  return static_cast<int>(attn.W_key(0, 0));
}

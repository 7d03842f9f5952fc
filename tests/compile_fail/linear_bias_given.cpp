// SPDX-License-Identifier: BSL-1.0
// nn.Linear(5, 3, bias=False)'s layer given a bias.
// expect: error: static assertion failed.*requires a bias exactly when the layer has one
// expect: (linear_bias_given_matches<false, true>|BiasGiven = true. HasBias = false)
// expect: (check_linear_bias_given<5UL, 3UL, false, true>|In = 5. long unsigned int Out = 3. bool HasBias = false)
#include <static_attention/nn/linear_layer.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 3, 5> w{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto layer = sa::linear_layer<float, 5, 3, false>::from_linear(w);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 1, 3> b{};
  constexpr auto layer = sa::linear_layer<float, 5, 3, false>::from_linear(w, b);
  // [/snippet]
#endif
  return static_cast<int>(layer.weight(0, 0));
}

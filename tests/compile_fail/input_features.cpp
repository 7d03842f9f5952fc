// SPDX-License-Identifier: BSL-1.0
// Inputs of 4 features into a module with d_in = 3.
// expect: error: static assertion failed.*requires inputs of N x d_in \(tokens x features\)
// expect: input_features_match<(static_attention::)?shape<6, 4>, 3(UL)?>
#include <static_attention/nn/self_attention.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::self_attention<double, 3, 2> attn{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<double, 6, 3> inputs{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<double, 6, 4> inputs{};
  // [/snippet]
#endif
  constexpr auto context = attn(inputs);
  return static_cast<int>(context(0, 0));
}

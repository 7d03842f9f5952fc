// SPDX-License-Identifier: BSL-1.0
// The upstream gradient of a 3 -> 2 layer's output given with 3 columns.
// expect: requires grad_output of the layer's output shape
// expect: grad_output_matches_output<(static_attention::)?shape<4, 2>, (static_attention::)?shape<4, 3> ?>
#include <static_attention/nn/backward.hpp>
#include <static_attention/nn/linear_layer.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::linear_layer<float, 3, 2> layer{};
  constexpr sa::matrix<float, 4, 3> input{};
#ifdef SA_TWIN
  constexpr sa::matrix<float, 4, 2> grad_output{};
#else
  constexpr sa::matrix<float, 4, 3> grad_output{};
#endif
  constexpr auto r = sa::backward(layer, input, grad_output);
  return static_cast<int>(r.grad_input(0, 0));
}

// SPDX-License-Identifier: BSL-1.0
// nn.MSELoss of a 1 x 3 output against a 3 x 1 target (torch would broadcast to 3 x 3 and warn).
// expect: mse_loss\(input, target\) requires input and target of one shape
// expect: shapes_equal<(static_attention::)?shape<1, 3>, (static_attention::)?shape<3, 1> ?>
#include <static_attention/nn/loss.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 1, 3> output{{0.5f, 0.25f, 1.0f}};
#ifdef SA_TWIN
  constexpr sa::matrix<float, 1, 3> target{};
#else
  constexpr sa::matrix<float, 3, 1> target{};
#endif
  constexpr float loss = sa::mse_loss(output, target);
  return static_cast<int>(loss);
}

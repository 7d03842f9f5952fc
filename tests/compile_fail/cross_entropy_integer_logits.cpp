// SPDX-License-Identifier: BSL-1.0
// Integer logits: log_softmax and cross_entropy need a floating-point element type.
// expect: require floating-point logits \(float or double\)
// expect: is_floating_element<int>
#include <array>

#include <static_attention/nn/loss.hpp>

namespace sa = static_attention;

int main() {
#ifdef SA_TWIN
  constexpr sa::matrix<float, 2, 4> logits{};
#else
  constexpr sa::matrix<int, 2, 4> logits{};
#endif
  constexpr auto loss = sa::cross_entropy(logits, std::array<int, 2>{1, 3});
  return static_cast<int>(*loss);
}

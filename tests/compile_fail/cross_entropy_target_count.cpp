// SPDX-License-Identifier: BSL-1.0
// Logits for 3 tokens and 4 targets: cross_entropy needs one target per token.
// expect: requires one target per token
// expect: targets_match_tokens<(static_attention::)?shape<3, 5>, (static_attention::)?shape<4> ?>
#include <array>

#include <static_attention/nn/loss.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 3, 5> logits{};
#ifdef SA_TWIN
  constexpr std::array<int, 3> targets{1, 2, 3};
#else
  constexpr std::array<int, 4> targets{1, 2, 3, 4};
#endif
  constexpr auto loss = sa::cross_entropy(logits, targets);
  return static_cast<int>(*loss);
}

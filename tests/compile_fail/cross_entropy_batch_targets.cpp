// SPDX-License-Identifier: BSL-1.0
// A 2 x 3 batch of logits with 2 x 4 targets (the inputs passed as targets would fit; these
// are shifted one token too far).
// expect: requires one target per token
// expect: targets_match_tokens<(static_attention::)?shape<2, 3, 7>, (static_attention::)?shape<2, 4> ?>
#include <static_attention/nn/loss.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::tensor<float, 2, 3, 7> logits{};
#ifdef SA_TWIN
  constexpr sa::matrix<int, 2, 3> targets{{1, 2, 3}, {4, 5, 6}};
#else
  constexpr sa::matrix<int, 2, 4> targets{{1, 2, 3, 4}, {4, 5, 6, 0}};
#endif
  constexpr auto loss = sa::cross_entropy(logits, targets);
  return static_cast<int>(*loss);
}

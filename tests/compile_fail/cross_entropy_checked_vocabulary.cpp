// SPDX-License-Identifier: BSL-1.0
// Targets checked against GPT-2's vocabulary, for logits over 64 classes: check_ids<64>(ids).
// expect: requires targets checked against at most the logits' V columns
// expect: targets_checked_within_vocabulary<50257(UL)?, 64(UL)?>
#include <array>

#include <static_attention/nn/loss.hpp>
#include <static_attention/nn/token_ids.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 2, 64> logits{};
#ifdef SA_TWIN
  constexpr auto targets = sa::check_ids<64>(std::array<int, 2>{7, 9});
#else
  constexpr auto targets = sa::check_ids<50257>(std::array<int, 2>{7, 9});
#endif
  constexpr float loss = sa::cross_entropy(logits, *targets);
  return static_cast<int>(loss);
}

// SPDX-License-Identifier: BSL-1.0
// Nine ids into a GPT whose context length is 8.
// expect: gpt_model\(ids\) requires N <= context_length
// expect: tokens_within_context_length<9(UL)?, 8(UL)?>
#include <array>

#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};

int main() {
  static const sa::gpt_model<float, tiny> model{};
#ifdef SA_TWIN
  const std::array<int, 8> ids{};
#else
  const std::array<int, 9> ids{};
#endif
  const auto logits = model(ids);
  return static_cast<int>(logits(0, 0));
}

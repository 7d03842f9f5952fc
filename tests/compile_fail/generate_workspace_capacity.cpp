// SPDX-License-Identifier: BSL-1.0
// A workspace of 6 tokens for 4 prompt ids and 4 new ones: the last step reads 7.
// expect: generate<MaxNew>\(model, prompt, workspace\) requires a workspace capacity
// expect: >= min\(N \+ MaxNew - 1, context_length\)
// expect: workspace_capacity_fits<6(UL)?, 7(UL)?>
#include <array>

#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};

int main() {
  static const sa::gpt_model<float, tiny> model{};
#ifdef SA_TWIN
  static sa::gpt_workspace<float, tiny, 7> workspace;
#else
  static sa::gpt_workspace<float, tiny, 6> workspace;
#endif
  const auto ids = sa::generate<4>(model, std::array<int, 4>{5, 17, 42, 63}, workspace);
  return ids ? (*ids)[7] : 1;
}

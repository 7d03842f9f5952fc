// SPDX-License-Identifier: BSL-1.0
// GPT-2 124M's model(ids) on 32 ids: 6.4 MB of logits and more of activations on the stack.
// expect: this call would put more than STATIC_ATTENTION_STACK_LIMIT bytes \(default 1 MiB\) on the stack
// expect: stack_use_within<[0-9]+(UL)?, 1048576(UL)?>
// expect: instead_gpt_model_hidden_ids_workspace
#include <array>
#include <memory>

#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;

int main() {
  static const auto model = std::make_unique<gpt2>();
#ifdef SA_TWIN
  // Through a static workspace, only the last hidden state on the stack.
  static sa::gpt_workspace<float, sa::gpt2_124m, 32> workspace;
  const auto last = model->prefill(std::array<int, 32>{}, workspace);
  return last ? static_cast<int>((*last)(0, 0)) : 1;
#else
  const auto logits = (*model)(std::array<int, 32>{});
  return static_cast<int>(logits(0, 0));
#endif
}

// SPDX-License-Identifier: BSL-1.0
// generate_text_simple<100> with GPT-2 124M: its local workspace of 103 tokens is 7 MiB.
// expect: this call would put more than STATIC_ATTENTION_STACK_LIMIT bytes \(default 1 MiB\) on the stack
// expect: stack_use_within<[0-9]+(UL)?, 1048576(UL)?>
// expect: instead_generate_model_prompt_static_workspace
#include <array>
#include <memory>

#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;

int main() {
  static const auto model = std::make_unique<gpt2>();
  const std::array<int, 4> prompt{15496, 11, 314, 716};
#ifdef SA_TWIN
  static sa::gpt_workspace<float, sa::gpt2_124m, 103> workspace;
  const auto ids = sa::generate<100>(*model, prompt, workspace);
  return ids ? (*ids)[4] : 1;
#else
  const auto ids = sa::generate_text_simple<100>(*model, prompt);
  return ids[4];
#endif
}

// SPDX-License-Identifier: BSL-1.0
// Verifying a GPT's next token: how far may the input embeddings move (l-infinity) before
// greedy decoding could change its choice? A tiny float GPT, certified with zonotopes that give
// the forward pass's rounding errors their own noise symbols, then checked against sampling.
// 320 symbols a value: the bound holds about 4 MB at once, past the default 1 MiB stack budget,
// within the main thread's 8 MiB. The budget is raised for this program before any include.
#define STATIC_ATTENTION_STACK_LIMIT (6u << 20)
#include <array>
#include <cstdio>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/verify.hpp>

namespace sa = static_attention;

namespace {
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};  // vocab, context, emb, heads, layers
sa::gpt_model<float, tiny> model;                              // static storage, not the stack
}  // namespace

int main() {
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  // [snippet:certify]
  constexpr std::array<int, 4> prompt{5, 17, 42, 63};
  // 64 symbols for the 4 x 16 input ball, 256 fresh ones for the steps' errors (4 x 64).
  using domain = sa::verify::zonotope<0, sa::verify::sound_policy, 256>;
  const float radius = sa::verify::certified_radius<domain>(model, prompt);
  const bool proved = sa::verify::certify_next_token<domain>(model, prompt, radius);
  const auto logits = sa::verify::bound<domain>(model, prompt, radius);  // 4 x 64 intervals
  std::printf("certified radius %g (%s); last row, logit 0 in [%g, %g]\n", static_cast<double>(radius),
              proved ? "proved" : "not proved", static_cast<double>(logits(3, 0).lo),
              static_cast<double>(logits(3, 0).hi));
  // [/snippet]
  return proved && radius > 0 ? 0 : 1;
}

// SPDX-License-Identifier: BSL-1.0
// Constexpr truth: the tiny GPT (vocab 64, context 8, torch.manual_seed(123)) samples inside
// static_assert, under the compilers' default constexpr limits, and gives torch 1.13's ids for
// the book's generate (sampling_reference.hpp): temperature 1.4 with top-k 25, and
// temperature 1 with an eos_id that stops it early.
#include <array>
#include <cstddef>
#include <optional>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>

#include "sampling_reference.hpp"

namespace sa = static_attention;
namespace rs = reference::sampling;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};

inline constexpr auto model = [] {
  sa::gpt_model<float, tiny> m;
  sa::torch_generator gen{123};
  sa::init_like_torch(m, gen);
  return m;
}();

// The reference case of these settings, 4 new tokens.
constexpr const rs::generation_case& find(double temperature, std::size_t top_k, std::uint64_t seed, bool eos) {
  for (const auto& c : rs::tiny_generations)
    if (c.temperature == temperature && c.top_k == top_k && c.seed == seed && c.max_new == 4 && (c.eos_id >= 0) == eos)
      return c;
  return rs::tiny_generations[0];
}

constexpr bool matches(const rs::generation_case& c) {
  sa::gpt_workspace<float, tiny, 7> ws;
  sa::torch_generator gen{c.seed};
  const sa::sampling s{c.temperature, c.top_k, c.eos_id < 0 ? std::nullopt : std::optional<std::int64_t>{c.eos_id}};
  const auto g = sa::generate<4>(model, prompt, ws, s, gen);
  if (g.length != c.length) return false;
  for (std::size_t i = 0; i < c.length; ++i)
    if (g.ids[i] != c.ids[i]) return false;
  return true;
}

}  // namespace

static_assert(find(1.4, 25, 123, false).temperature == 1.4);
static_assert(matches(find(1.4, 25, 123, false)));
static_assert(find(1.0, 0, 123, true).eos_id >= 0 && find(1.0, 0, 123, true).length < 8);
static_assert(matches(find(1.0, 0, 123, true)));

int main() {}

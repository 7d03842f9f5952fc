// SPDX-License-Identifier: BSL-1.0
// Run-time truth: generate(model, prompt, workspace, sampling, gen) on the tiny GPT of
// tests/gpt (vocab 64, context 8; float and double, torch.manual_seed(123)) gives the ids of
// the book's generate under torch 1.13, token for token: temperatures 0.5, 1, 1.4, 5, top-k
// none, 1, 3, 25, 50, seeds 123 and 7, 4 new tokens (within the context) and 10 (past it, where
// the book crops), and eos_id stopping. The run-time-prompt overload gives the same ids.
#include <array>
#include <cstddef>
#include <optional>
#include <span>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>

#include <doctest/doctest.h>

#include "sampling_reference.hpp"

namespace sa = static_attention;
namespace rs = reference::sampling;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};

template <class T>
const sa::gpt_model<T, tiny>& model() {
  static const sa::gpt_model<T, tiny> m = [] {
    sa::gpt_model<T, tiny> built;
    sa::torch_generator gen{123};
    sa::init_like_torch(built, gen);
    return built;
  }();
  return m;
}

sa::sampling settings(const rs::generation_case& c) {
  return {c.temperature, c.top_k, c.eos_id < 0 ? std::nullopt : std::optional<std::int64_t>{c.eos_id}};
}

template <std::size_t MaxNew, class T>
void check_case(const rs::generation_case& c) {
  static sa::gpt_workspace<T, tiny, 8> ws;
  sa::torch_generator gen{c.seed};
  const auto g = sa::generate<MaxNew>(model<T>(), prompt, ws, settings(c), gen);
  REQUIRE(g.length == c.length);
  for (std::size_t i = 0; i < c.length; ++i) CHECK(g.ids[i] == c.ids[i]);
  for (std::size_t i = c.length; i < g.ids.size(); ++i) CHECK(g.ids[i] == 0);
  // The same with the prompt's length known only at run time.
  std::array<int, 14> out{};
  sa::torch_generator gen2{c.seed};
  const auto written = sa::generate(model<T>(), std::span<const int>(prompt), ws, MaxNew, settings(c), gen2,
                                    std::span<int>(out));
  REQUIRE(written);
  REQUIRE(*written == c.length);
  for (std::size_t i = 0; i < c.length; ++i) CHECK(out[i] == c.ids[i]);
}

template <class T, std::size_t N>
void check_all(const rs::generation_case (&cases)[N]) {
  std::size_t eos_cases = 0;
  for (const auto& c : cases) {
    INFO("temperature ", c.temperature, ", top_k ", c.top_k, ", seed ", c.seed, ", eos_id ", c.eos_id, ", max_new ",
         c.max_new);
    eos_cases += c.eos_id >= 0 ? 1u : 0u;
    if (c.max_new == 4)
      check_case<4, T>(c);
    else
      check_case<10, T>(c);
  }
  CHECK(eos_cases > 0);
}

}  // namespace

TEST_CASE("tiny GPT (float): the book's generate, token for token") { check_all<float>(rs::tiny_generations); }

TEST_CASE("tiny GPT (double): the book's generate, token for token") { check_all<double>(rs::tiny_f64_generations); }

TEST_CASE("temperature 0 with top-k is the book's argmax of the logits") {
  static sa::gpt_workspace<float, tiny, 8> ws;
  sa::torch_generator gen{1};
  const auto g = sa::generate<4>(model<float>(), prompt, ws, sa::sampling{.temperature = 0, .top_k = 3, .eos_id = {}},
                                 gen);
  const auto greedy = sa::generate_text_simple<4>(model<float>(), prompt);
  CHECK(g.length == 8);
  for (std::size_t i = 0; i < 8; ++i) CHECK(g.ids[i] == greedy[i]);
}

// SPDX-License-Identifier: BSL-1.0
// Run-time truth: GPT-2 124M (the book's GPT_CONFIG_124M, torch.manual_seed(123)) continues
// "Hello, I am" with torch 1.13's sampled ids, token for token: temperature 1.4 with top-k 25
// (the book's settings), 1 without top-k, 0.5 with top-k 50 (seed 7). The model lives in static
// storage (about 650 MB of .bss); so does the workspace.
#include <array>
#include <cstddef>
#include <optional>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>

#include <doctest/doctest.h>

#include "sampling_reference.hpp"

namespace sa = static_attention;
namespace rs = reference::sampling;

namespace {

using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;

const gpt2& model() {
  static gpt2 m;  // zero-initialised: .bss
  static const bool ready = [] {
    sa::torch_generator gen{123};
    sa::init_like_torch(m, gen);
    return true;
  }();
  (void)ready;
  return m;
}

}  // namespace

TEST_CASE("GPT-2 124M: generate samples torch's ids for \"Hello, I am\"") {
  static sa::gpt_workspace<float, sa::gpt2_124m, 11> ws;
  const std::array<int, 4> hello{15496, 11, 314, 716};
  for (const auto& c : rs::gpt124m_generations) {
    INFO("temperature ", c.temperature, ", top_k ", c.top_k, ", seed ", c.seed);
    sa::torch_generator gen{c.seed};
    const auto g = sa::generate<8>(model(), hello, ws, sa::sampling{c.temperature, c.top_k, std::nullopt}, gen);
    REQUIRE(g.length == c.length);
    for (std::size_t i = 0; i < c.length; ++i) CHECK(g.ids[i] == c.ids[i]);
  }
}

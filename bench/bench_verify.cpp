// SPDX-License-Identifier: BSL-1.0
// verify::bound at run time on one GPT-2 124M transformer block (emb 768, 12 heads, torch's
// initialisation, seed 123) over the ball of radius 2^-10 around 8 tokens of hidden states:
// intervals (IBP), and zonotopes over a few shared noise symbols. The counters give the mean
// width of the output intervals. The bounds hold a few MB on the stack at once (the 8 x 3072
// feed-forward values): the budget is raised to 6 MiB, within the main thread's 8 MiB; with 8
// symbols the bound would need about 12 MB and is refused at compile time.
#define STATIC_ATTENTION_STACK_LIMIT (6u << 20)
#include <cstddef>
#include <memory>

#include <benchmark/benchmark.h>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/nn/transformer_block.hpp>
#include <static_attention/verify.hpp>

namespace {

namespace sa = static_attention;
namespace verify = sa::verify;
using block_type = sa::transformer_block<float, 768, 12, 1024>;
constexpr std::size_t tokens = 8;

const block_type& block() {
  static const auto b = [] {
    auto m = std::make_unique<block_type>();  // 28 MB of weights: heap
    sa::torch_generator gen{123};
    sa::init_like_torch(*m, gen);
    return m;
  }();
  return *b;
}

const sa::matrix<float, tokens, 768>& centre() {
  static const auto x = [] {
    auto m = std::make_unique<sa::matrix<float, tokens, 768>>();
    sa::torch_generator gen{7};
    for (auto& v : *m) v = static_cast<float>(gen.random() % 2001) / 1000.0f - 1.0f;
    return m;
  }();
  return *x;
}

template <class Domain>
void block_bound(benchmark::State& state) {
  const auto& b = block();
  const auto set = verify::ball(centre(), 0x1p-10f);
  double width = 0;
  for (auto _ : state) {
    const auto y = verify::bound<Domain>(b, set);
    benchmark::DoNotOptimize(&y);
    width = 0;
    for (std::size_t i = 0; i < tokens; ++i)
      for (std::size_t j = 0; j < 768; ++j) width += static_cast<double>(y(i, j).hi) - static_cast<double>(y(i, j).lo);
  }
  state.counters["mean_width"] = width / (tokens * 768.0);
}

BENCHMARK(block_bound<verify::ibp>)->Name("gpt2_block_bound/8_tokens/ibp")->Unit(benchmark::kMillisecond);
BENCHMARK(block_bound<verify::zonotope<2>>)
    ->Name("gpt2_block_bound/8_tokens/zonotope_2")
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

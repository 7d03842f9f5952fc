// GPT-2 124M at run time, float32, one thread: prefill of a 128-token prompt (time to first
// token) and one-token decode steps with the KV cache, beside the machine's memory read
// bandwidth measured in this binary. A decode step reads every weight once (494.5 MB: each
// block, the final norm, out_head in full, one row of each embedding), so tokens/s x bytes per
// token / read bandwidth is how close decoding runs to the memory limit. The model is
// initialised with init_like_torch (seed 123): no weight files.
#include <array>
#include <cstddef>
#include <memory>

#include <benchmark/benchmark.h>

#include <static_attention/gpt.hpp>
#include <static_attention/random.hpp>

#include "bandwidth.hpp"

namespace {

namespace sa = static_attention;
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;
using workspace = sa::gpt_workspace<float, sa::gpt2_124m, 1024>;

// The float32 weights a decode step reads.
constexpr double bytes_per_token = 4.0 * (gpt2::parameter_count - 50257.0 * 768 - 1024.0 * 768 + 2 * 768);

// Flops of the large products per token (the blocks' projections and feed-forward).
constexpr double block_flops_per_token = 2.0 * 12 * (4.0 * 768 * 768 + 2.0 * 768 * 3072);

gpt2& model() {
  static auto m = std::make_unique<gpt2>();  // 650 MB: heap here (the tests use static storage)
  static const bool ready = [] {
    sa::torch_generator gen{123};
    sa::init_like_torch(*m, gen);
    return true;
  }();
  (void)ready;
  return *m;
}

workspace& shared_workspace() {
  static auto ws = std::make_unique<workspace>();
  return *ws;
}

int next_id(const sa::matrix<float, 1, 768>& h) { return static_cast<int>(sa::detail::argmax(model().head(h))); }

// 128 prompt tokens through the caches, then the first new id: time to first token.
void gpt2_prefill_128(benchmark::State& state) {
  gpt2& m = model();
  workspace& ws = shared_workspace();
  std::array<int, 128> prompt{};
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int>((i * 7919) % 50257);
  for (auto _ : state) {
    ws.clear();
    benchmark::DoNotOptimize(next_id(m.prefill(prompt, ws)));
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(128, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["FLOPS"] =
      benchmark::Counter(128 * block_flops_per_token + 2.0 * 768 * 50257, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
}
BENCHMARK(gpt2_prefill_128)->Unit(benchmark::kMillisecond);

// One token per iteration after a 4-token prompt, positions 4 to 255 (then the cache starts
// over, outside the timing): the greedy loop of generate().
void gpt2_decode(benchmark::State& state) {
  gpt2& m = model();
  workspace& ws = shared_workspace();
  const std::array<int, 4> hello{15496, 11, 314, 716};
  ws.clear();
  int id = next_id(m.prefill(hello, ws));
  for (auto _ : state) {
    if (ws.length() == 256) {
      state.PauseTiming();
      ws.clear();
      id = next_id(m.prefill(hello, ws));
      state.ResumeTiming();
    }
    id = next_id(m.hidden(std::array<int, 1>{id}, ws));
    benchmark::DoNotOptimize(id);
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  bench::set_bytes(state, bytes_per_token);
}
BENCHMARK(gpt2_decode)->Unit(benchmark::kMillisecond);

BENCHMARK(bench::read_bandwidth)->Unit(benchmark::kMillisecond);
BENCHMARK(bench::copy_bandwidth)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// SPDX-License-Identifier: BSL-1.0
// GPT-2 124M at run time, float32, one thread (or, with --threads N, also a thread_pool of N
// threads: the same benchmarks with "/threads:N", and the read bandwidth at N threads): prefill of a 128-token prompt
// (time to first token) and one-token decode steps with the KV cache, beside the machine's memory read bandwidth
// measured in this binary. A decode step reads every weight once (494.5 MB: each block, the final norm, out_head in
// full, one row of each embedding), so tokens/s x bytes per token / read bandwidth is how close decoding runs to the
// memory limit. The model is initialised with init_like_torch (seed 123): no weight files.
#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/thread_pool.hpp>

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
    benchmark::DoNotOptimize(next_id(m.prefill(prompt, ws).value()));
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
  int id = next_id(m.prefill(hello, ws).value());
  for (auto _ : state) {
    if (ws.length() == 256) {
      state.PauseTiming();
      ws.clear();
      id = next_id(m.prefill(hello, ws).value());
      state.ResumeTiming();
    }
    id = next_id(m.hidden(std::array<int, 1>{id}, ws).value());
    benchmark::DoNotOptimize(id);
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  bench::set_bytes(state, bytes_per_token);
}
BENCHMARK(gpt2_decode)->Unit(benchmark::kMillisecond);

BENCHMARK(bench::read_bandwidth)->Unit(benchmark::kMillisecond);
BENCHMARK(bench::copy_bandwidth)->Unit(benchmark::kMillisecond);

int next_id(const sa::matrix<float, 1, 768>& h, sa::thread_pool& pool) {
  static sa::matrix<float, 1, 50257> logits;
  sa::matmul_into(logits, h, model().out_head, pool);
  return static_cast<int>(sa::detail::argmax(logits));
}

// gpt2_prefill_128 with the pool.
void gpt2_prefill_128_pool(benchmark::State& state, sa::thread_pool* pool) {
  gpt2& m = model();
  workspace& ws = shared_workspace();
  std::array<int, 128> prompt{};
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int>((i * 7919) % 50257);
  for (auto _ : state) {
    ws.clear();
    benchmark::DoNotOptimize(next_id(m.prefill(prompt, ws, *pool).value(), *pool));
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(128, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// gpt2_decode with the pool.
void gpt2_decode_pool(benchmark::State& state, sa::thread_pool* pool) {
  gpt2& m = model();
  workspace& ws = shared_workspace();
  const std::array<int, 4> hello{15496, 11, 314, 716};
  ws.clear();
  int id = next_id(m.prefill(hello, ws, *pool).value(), *pool);
  for (auto _ : state) {
    if (ws.length() == 256) {
      state.PauseTiming();
      ws.clear();
      id = next_id(m.prefill(hello, ws, *pool).value(), *pool);
      state.ResumeTiming();
    }
    id = next_id(m.hidden(std::array<int, 1>{id}, ws, *pool).value(), *pool);
    benchmark::DoNotOptimize(id);
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  bench::set_bytes(state, bytes_per_token);
}

void read_bandwidth_pool(benchmark::State& state, sa::thread_pool* pool, std::size_t streams) {
  bench::read_bandwidth_threads(state, *pool, streams);
}

// The count of --threads N (removed from argv), 0 without it.
std::size_t take_threads_option(int& argc, char** argv) {
  std::size_t threads = 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = static_cast<std::size_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads = static_cast<std::size_t>(std::strtoul(argv[i] + 10, nullptr, 10));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return threads;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t threads = take_threads_option(argc, argv);
  std::unique_ptr<sa::thread_pool> pool;
  if (threads > 0) {
    pool = std::make_unique<sa::thread_pool>(threads);
    const std::string suffix = "/threads:" + std::to_string(threads);
    benchmark::RegisterBenchmark(("gpt2_prefill_128" + suffix).c_str(), gpt2_prefill_128_pool, pool.get())
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("gpt2_decode" + suffix).c_str(), gpt2_decode_pool, pool.get())
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (std::size_t streams : {1u, 2u, 4u, 8u})
      benchmark::RegisterBenchmark(("read_bandwidth" + suffix + "/streams:" + std::to_string(streams)).c_str(),
                                   read_bandwidth_pool, pool.get(), streams)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

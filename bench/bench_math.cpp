// SPDX-License-Identifier: BSL-1.0
// Array exp/tanh of static_attention/core/math.hpp against a loop of std::exp/std::tanh (glibc).
// Built by bench/CMakeLists.txt (preset `bench`, target bench_math, -O3 -march=native), or by hand:
//   g++ -std=c++20 -O3 -march=native -Iinclude bench/bench_math.cpp -o /tmp/bench_math
//       -lbenchmark -lpthread && /tmp/bench_math   (one line)
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include <benchmark/benchmark.h>

#include "static_attention/core/math.hpp"

namespace {

template <class T>
std::vector<T> inputs(std::size_t n, double lo, double hi) {
  std::mt19937_64 rng{42};
  std::uniform_real_distribution<double> d{lo, hi};
  std::vector<T> v(n);
  for (auto& x : v) {
    x = static_cast<T>(d(rng));
  }
  return v;
}

// Softmax-like arguments for exp (x - max <= 0), and activations for tanh.
template <class T>
void bm_sa_exp(benchmark::State& state) {
  const auto in = inputs<T>(static_cast<std::size_t>(state.range(0)), -20.0, 0.0);
  std::vector<T> out(in.size());
  for (auto _ : state) {
    static_attention::exp(std::span<const T>{in}, std::span<T>{out});
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
template <class T>
void bm_std_exp(benchmark::State& state) {
  const auto in = inputs<T>(static_cast<std::size_t>(state.range(0)), -20.0, 0.0);
  std::vector<T> out(in.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      out[i] = std::exp(in[i]);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
template <class T>
void bm_sa_tanh(benchmark::State& state) {
  const auto in = inputs<T>(static_cast<std::size_t>(state.range(0)), -5.0, 5.0);
  std::vector<T> out(in.size());
  for (auto _ : state) {
    static_attention::tanh(std::span<const T>{in}, std::span<T>{out});
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
template <class T>
void bm_std_tanh(benchmark::State& state) {
  const auto in = inputs<T>(static_cast<std::size_t>(state.range(0)), -5.0, 5.0);
  std::vector<T> out(in.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      out[i] = std::tanh(in[i]);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

#define SA_BENCH(fn) \
  BENCHMARK(fn)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Repetitions(5)->ReportAggregatesOnly(true)

SA_BENCH(bm_sa_exp<float>);
SA_BENCH(bm_std_exp<float>);
SA_BENCH(bm_sa_exp<double>);
SA_BENCH(bm_std_exp<double>);
SA_BENCH(bm_sa_tanh<float>);
SA_BENCH(bm_std_tanh<float>);
SA_BENCH(bm_sa_tanh<double>);
SA_BENCH(bm_std_tanh<double>);

}  // namespace

BENCHMARK_MAIN();

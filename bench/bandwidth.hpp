// Memory bandwidth, the limit of memory-bound work (one-row products, GPT decoding), measured in
// the benchmark binary that reports against it: reading 256 MiB with vector loads, and copying
// 128 MiB. Counter BYTES is the bytes read (and, for the copy, written) per iteration.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>

#include <benchmark/benchmark.h>

#include <static_attention/detail/kernel_simd.hpp>

namespace bench {

inline void set_bytes(benchmark::State& state, double bytes_per_iteration) {
  state.counters["BYTES"] = benchmark::Counter(bytes_per_iteration, benchmark::Counter::kIsIterationInvariantRate,
                                               benchmark::Counter::kIs1000);
}

inline void read_bandwidth(benchmark::State& state) {
  namespace simd = static_attention::detail::simd;
  constexpr std::size_t lanes = simd::native_lanes < float >> 0 ? simd::native_lanes<float> : 4;
  using V = simd::vec<float, lanes>;
  constexpr std::size_t n = std::size_t{64} << 20;  // floats
  auto data = std::make_unique<float[]>(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(i & 1023);
  for (auto _ : state) {
    V acc[4] = {};
    for (std::size_t i = 0; i < n; i += 4 * lanes)
      for (std::size_t q = 0; q < 4; ++q) {
        V v;
        std::memcpy(&v, data.get() + i + q * lanes, sizeof(V));
        acc[q] += v;
      }
    benchmark::DoNotOptimize(acc);
  }
  set_bytes(state, static_cast<double>(n * sizeof(float)));
}

inline void copy_bandwidth(benchmark::State& state) {
  constexpr std::size_t n = std::size_t{32} << 20;  // floats
  auto from = std::make_unique<float[]>(n);
  auto to = std::make_unique<float[]>(n);
  for (std::size_t i = 0; i < n; ++i) from[i] = static_cast<float>(i & 1023);
  for (auto _ : state) {
    std::memcpy(to.get(), from.get(), n * sizeof(float));
    benchmark::DoNotOptimize(to.get());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2.0 * static_cast<double>(n * sizeof(float)));
}

}  // namespace bench

// SPDX-License-Identifier: BSL-1.0
// Memory bandwidth, the limit of memory-bound work (one-row products, GPT decoding), measured in
// the benchmark binary that reports against it: reading 256 MiB with vector loads, and copying
// 128 MiB. Counter BYTES is the bytes read (and, for the copy, written) per iteration.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>

#include <benchmark/benchmark.h>

#include <static_attention/core/detail/kernel_simd.hpp>
#include <static_attention/nn/thread_pool.hpp>

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

// One thread's share of a threaded read: its slice of the buffer, as `streams` sub-slices read
// side by side (one vector of each per step), summed so the loads are not optimised away.
struct read_share {
  const float* data;
  std::size_t n;
  std::size_t streams;
  std::size_t threads;
  float* sinks;
  void operator()(std::size_t t) const noexcept {
    namespace simd = static_attention::detail::simd;
    constexpr std::size_t lanes = simd::native_lanes < float >> 0 ? simd::native_lanes<float> : 4;
    using V = simd::vec<float, lanes>;
    const std::size_t slice = n / threads / (streams * lanes) * (streams * lanes);
    const std::size_t sub = slice / streams;
    const float* base = data + t * slice;
    V acc[8] = {};
    for (std::size_t i = 0; i < sub; i += lanes)
      for (std::size_t s = 0; s < streams; ++s) {
        V v;
        std::memcpy(&v, base + s * sub + i, sizeof(V));
        acc[s] += v;
      }
    float total = 0;
    for (std::size_t s = 0; s < streams; ++s)
      for (std::size_t l = 0; l < lanes; ++l) total += acc[s][l];
    sinks[t * 16] = total;
  }
};

// The buffer the threaded read benchmarks share: 256 MiB.
inline const float* read_buffer(std::size_t n) {
  static const auto data = [n] {
    auto d = std::make_unique<float[]>(n);
    for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<float>(i & 1023);
    return d;
  }();
  return data.get();
}

// Read bandwidth of 256 MiB read by every thread of pool, each thread its own slice as
// `streams` (1 to 8) sub-slices read side by side: the limit a decode step on that many
// threads runs against (take the best over streams).
inline void read_bandwidth_threads(benchmark::State& state, static_attention::thread_pool& pool, std::size_t streams) {
  constexpr std::size_t n = std::size_t{64} << 20;  // floats
  const float* data = read_buffer(n);
  auto sinks = std::make_unique<float[]>(16 * pool.size());
  const read_share share{data, n, streams, pool.size(), sinks.get()};
  for (auto _ : state) {
    pool.run(share);
    benchmark::DoNotOptimize(sinks.get());
    benchmark::ClobberMemory();
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

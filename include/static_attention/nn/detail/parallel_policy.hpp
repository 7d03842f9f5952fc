// SPDX-License-Identifier: BSL-1.0
// How a forward pass shares its work: `serial` runs everything on the calling thread (the calls
// without a pool, constexpr); `parallel<Pool>` splits each weight product's output columns and
// the attention's heads between a pool's threads, in chunks the threads claim in turn, so every
// output element is computed by one thread in the serial order: the same bits for any thread
// count and any order of claims.
// Freestanding: the pool type is a template argument (nn/thread_pool.hpp defines the one used).
#pragma once

#include <cstddef>

#include <static_attention/core/detail/matmul_columns.hpp>
#include <static_attention/core/detail/matmul_kernel.hpp>
#include <static_attention/nn/detail/cached_attention.hpp>

namespace static_attention::detail {

/// Everything on the calling thread: the kernels as the calls without a pool run them.
struct serial {
  // A byte of state, so that GCC (-O1) does not take the empty policy for an uninitialised read.
  bool unused = false;
  /// out (R x C) = a (R x K) . b (K x C).
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  constexpr void matmul(const T* a, const T* b, T* out) const noexcept {
    matmul_kernel<T, R, K, C>(a, b, out);
  }
  /// causal_attend with no dropout; scores holds at least one row of Capacity.
  template <class T, std::size_t D, std::size_t Heads, std::size_t Capacity>
  constexpr void attend(const T* queries, std::size_t rows, const T* keys_t, const T* values, std::size_t first,
                        T* context, T* scores) const noexcept {
    causal_attend<T, D, Heads, Capacity>(queries, rows, keys_t, values, first, context, scores, no_dropout{});
  }
};

// One part of a split product, as a pool's task.
template <class T, std::size_t R, std::size_t K, std::size_t C>
struct product_part {
  const T* a;
  const T* b;
  T* out;
  std::size_t parts;
  void operator()(std::size_t part) const noexcept { matmul_columns<T, R, K, C>(a, b, out, part, parts); }
};

// One thread's heads, as a pool's task.
template <class T, std::size_t D, std::size_t Heads, std::size_t Capacity>
struct heads_part {
  const T* queries;
  std::size_t rows;
  const T* keys_t;
  const T* values;
  std::size_t first;
  T* context;
  T* scores;
  std::size_t parts;
  void operator()(std::size_t part) const noexcept {
    causal_attend<T, D, Heads, Capacity>(queries, rows, keys_t, values, first, context, scores, no_dropout{},
                                         part_begin(Heads, part, parts), part_begin(Heads, part + 1, parts), Capacity);
  }
};

/// The work split between the threads of *pool (run time only): Pool has size() and
/// run_chunks(task, chunks), which calls task(c) for each chunk c, the threads claiming chunks.
template <class Pool>
struct parallel {
  Pool* pool;
  /// Chunks of a product per thread: one, the widest rows of b a thread can stream (decoding
  /// reads b at the memory's speed only in long runs). The chunks are still claimed, so a thread
  /// whose core is taken before it claims leaves its chunk to the others. Measured (GPT-2 124M
  /// decode, 2 threads, 2-vCPU Xeon): 4 a thread 24.8-25.2 ms a token, 2: 21.9-22.2, 1: 19.6-20.7;
  /// with one core taken by another process, 4: 19% slower than no pool, 1: 9%.
  static constexpr std::size_t chunks_per_thread = 1;
  /// out (R x C) = a (R x K) . b (K x C), in chunks of columns.
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  void matmul(const T* a, const T* b, T* out) const noexcept {
    const std::size_t chunks = pool->size() * chunks_per_thread;
    pool->run_chunks(product_part<T, R, K, C>{a, b, out, chunks}, chunks);
  }
  /// causal_attend with no dropout, a head a chunk; scores holds Heads rows of Capacity.
  template <class T, std::size_t D, std::size_t Heads, std::size_t Capacity>
  void attend(const T* queries, std::size_t rows, const T* keys_t, const T* values, std::size_t first, T* context,
              T* scores) const noexcept {
    const std::size_t chunks = pool->size() == 1 ? 1 : Heads;
    pool->run_chunks(heads_part<T, D, Heads, Capacity>{queries, rows, keys_t, values, first, context, scores, chunks},
                     chunks);
  }
};

}  // namespace static_attention::detail

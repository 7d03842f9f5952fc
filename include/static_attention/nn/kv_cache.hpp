// SPDX-License-Identifier: BSL-1.0
// kv_cache: the keys and values of the tokens an attention layer has seen, so that new tokens
// attend to them without recomputing them. Capacity is in the type; the fill level is the one
// run-time value.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/detail/matmul_kernel.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/nn/detail/attention_core.hpp>
#include <static_attention/nn/detail/cached_attention.hpp>
#include <static_attention/nn/multi_head_attention.hpp>

namespace static_attention {

/// Keys and values of up to Capacity tokens of D features, rows [0, length) in use.
template <class T, std::size_t Capacity, std::size_t D>
struct kv_cache {
  static_assert(Capacity > 0, "kv_cache<T, Capacity, D> requires Capacity > 0");
  /// The most tokens it holds.
  static constexpr std::size_t capacity = Capacity;
  /// Keys, transposed: column p is the key of the token at position p, so that a query's
  /// scores against every position read each feature's keys contiguously.
  matrix<T, D, Capacity> keys_t;
  /// Row p is the value of the token at position p.
  matrix<T, Capacity, D> values;
  /// Tokens held: the next token goes to position `length`.
  std::size_t length = 0;

  /// Forgets every token (the storage is reused).
  constexpr void clear() noexcept { length = 0; }
};

/// Causal multi-head attention of a whole sequence into caller-owned storage: `out = att(x)`,
/// bit for bit, with the keys and values in `cache` (cleared first) and only a block of 16
/// queries and one row of weights on the stack, however long the sequence. For long sequences
/// at GPT-2 size (the chapter's exercise 3.3: d = 768, 12 heads, 1024 tokens) where `att(x)`'s
/// locals (Q, K, V, the N x N weights) would overflow a thread's stack: put x, out and cache in
/// static storage or on the heap.
template <class T, std::size_t DIn, std::size_t DOut, std::size_t Heads, std::size_t Ctx, bool QkvBias,
          std::size_t Capacity, std::size_t N>
constexpr void attend_into(const multi_head_attention<T, DIn, DOut, Heads, Ctx, QkvBias>& att,
                           const matrix<T, N, DIn>& x, matrix<T, N, DOut>& out,
                           kv_cache<T, Capacity, DOut>& cache) noexcept {
  static_assert(tokens_within_context_length<N, Ctx>, "attend_into(att, x, out, cache) requires N <= context_length");
  static_assert(tokens_within_context_length<N, Capacity>,
                "attend_into(att, x, out, cache) requires N <= the cache's capacity");
  cache.clear();
  detail::matmul_kernel<T, N, DIn, DOut>(x.elems, att.W_value.elems, cache.values.elems);
  if constexpr (QkvBias) detail::add_bias_rows<T, N, DOut>(cache.values.elems, att.b_value);
  constexpr std::size_t block = N < 16 ? N : 16;
  const auto store_block = [&]<std::size_t Rows>(std::size_t first) {
    T keys[Rows * DOut]{};
    detail::matmul_kernel<T, Rows, DIn, DOut>(x.elems + first * DIn, att.W_key.elems, keys);
    if constexpr (QkvBias) detail::add_bias_rows<T, Rows, DOut>(keys, att.b_key);
    detail::store_keys<Capacity, DOut>(cache.keys_t.elems, first, Rows, keys);
  };
  constexpr std::size_t whole = N / block;
  for (std::size_t b = 0; b < whole; ++b) store_block.template operator()<block>(b * block);
  if constexpr (whole * block < N) store_block.template operator()<N - whole * block>(whole * block);
  cache.length = N;
  T scores[Capacity]{};
  const auto run_block = [&]<std::size_t Rows>(std::size_t first) {
    T queries[Rows * DOut]{};
    T context[Rows * DOut]{};
    detail::matmul_kernel<T, Rows, DIn, DOut>(x.elems + first * DIn, att.W_query.elems, queries);
    if constexpr (QkvBias) detail::add_bias_rows<T, Rows, DOut>(queries, att.b_query);
    detail::causal_attend<T, DOut, Heads, Capacity>(queries, Rows, cache.keys_t.elems, cache.values.elems, first,
                                                    context, scores, detail::no_dropout{});
    T* y = out.elems + first * DOut;
    detail::matmul_kernel<T, Rows, DOut, DOut>(context, att.W_out.elems, y);
    detail::add_bias_rows<T, Rows, DOut>(y, att.b_out);
  };
  for (std::size_t b = 0; b < whole; ++b) run_block.template operator()<block>(b * block);
  if constexpr (whole * block < N) run_block.template operator()<N - whole * block>(whole * block);
}

}  // namespace static_attention

// kv_cache: the keys and values of the tokens an attention layer has seen, so that new tokens
// attend to them without recomputing them. Capacity is in the type; the fill level is the one
// run-time value.
#pragma once

#include <cassert>
#include <cstddef>
#include <type_traits>

#include <static_attention/detail/attention_core.hpp>
#include <static_attention/detail/fp_contract.hpp>
#include <static_attention/detail/index_check.hpp>
#include <static_attention/detail/kernel_simd.hpp>
#include <static_attention/detail/matmul_kernel.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/multi_head_attention.hpp>
#include <static_attention/softmax.hpp>

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

namespace detail {
// Not constexpr: reaching it in constant evaluation reports the overflow by name.
inline void kv_cache_capacity_exceeded(std::size_t /*length*/, std::size_t /*new_tokens*/,
                                       std::size_t /*capacity*/) noexcept {}

template <std::size_t Capacity>
constexpr bool check_cache_room(std::size_t length, std::size_t new_tokens) noexcept {
  if (length + new_tokens > Capacity) {
    if (std::is_constant_evaluated()) kv_cache_capacity_exceeded(length, new_tokens, Capacity);
    assert(false && "static_attention: kv_cache capacity exceeded; clear() it or use a larger Capacity");
    return false;
  }
  return true;
}
}  // namespace detail

namespace detail {
// Causal attention of N query rows (row stride D; head h in columns [h hd, (h + 1) hd)) whose
// keys and values are already in the cache at rows first, ..., first + N - 1: query i attends
// to cache rows 0 .. first + i. context (N x D, zeros on entry) receives the heads' outputs;
// scores is scratch for one row of weights. Each score is the in-order dot product divided by
// sqrt(head_dim), each row a softmax, each output an in-order weighted sum: a full pass's
// terms in a full pass's order.
template <class T, std::size_t D, std::size_t Heads, std::size_t Capacity, std::size_t N>
constexpr void attend_rows(const T* queries, const kv_cache<T, Capacity, D>& cache, std::size_t first, T* context,
                           T* scores) noexcept {
  constexpr std::size_t head_dim = D / Heads;
  constexpr T scale = sqrt_dk<T, head_dim>();
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t seen = first + i + 1;  // positions 0 .. first + i
    for (std::size_t h = 0; h < Heads; ++h) {
      const T* query = queries + i * D + h * head_dim;
      const T* keys = cache.keys_t.elems + h * head_dim * Capacity;  // feature k of position p at k * Capacity + p
      std::size_t p = 0;
#if defined(__GNUC__)
      // At run time, vectors of positions: lane p sums its own products in order of k.
      constexpr std::size_t lanes = simd::native_lanes<T>;
      if constexpr (lanes >= simd::min_lanes<T>) {
        if (!std::is_constant_evaluated()) {
          using V = simd::vec<T, lanes>;
          for (; p + lanes <= seen; p += lanes) {
            V dot{};
            for (std::size_t k = 0; k < head_dim; ++k) {
              V key;
              __builtin_memcpy(&key, keys + k * Capacity + p, sizeof(V));
              multiply_add(dot, query[k] - V{}, key);
            }
            const V scaled = dot / scale;
            __builtin_memcpy(scores + p, &scaled, sizeof(V));
          }
        }
      }
#endif
      for (; p < seen; ++p) {
        T dot{};
        for (std::size_t k = 0; k < head_dim; ++k) dot += rounded_product(query[k], keys[k * Capacity + p]);
        scores[p] = dot / scale;
      }
      softmax_rows<T>(scores, scores, 1, seen);
      T* out = context + i * D + h * head_dim;
      bool done = false;
#if defined(__GNUC__)
      // At run time, vectors of features: lane k sums its own products in order of p.
      if constexpr (lanes >= simd::min_lanes<T> && head_dim % lanes == 0) {
        if (!std::is_constant_evaluated()) {
          using V = simd::vec<T, lanes>;
          for (std::size_t k0 = 0; k0 < head_dim; k0 += lanes) {
            V acc;
            __builtin_memcpy(&acc, out + k0, sizeof(V));
            for (std::size_t q = 0; q < seen; ++q) {
              V value;
              __builtin_memcpy(&value, cache.values.elems + q * D + h * head_dim + k0, sizeof(V));
              multiply_add(acc, scores[q] - V{}, value);
            }
            __builtin_memcpy(out + k0, &acc, sizeof(V));
          }
          done = true;
        }
      }
#endif
      if (!done)
        for (std::size_t q = 0; q < seen; ++q) {
          const T* value = cache.values.elems + q * D + h * head_dim;
          for (std::size_t k = 0; k < head_dim; ++k) out[k] += rounded_product(scores[q], value[k]);
        }
    }
  }
}

// Keys of `rows` tokens (rows x D, row-major) into the cache's columns first, first + 1, ...
template <class T, std::size_t Capacity, std::size_t D>
constexpr void store_keys(kv_cache<T, Capacity, D>& cache, std::size_t first, std::size_t rows,
                          const T* keys) noexcept {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < D; ++j) cache.keys_t.elems[j * Capacity + first + i] = keys[i * D + j];
}

// rows x cols values at y, plus the bias row b added to each row.
template <class T, std::size_t Rows, std::size_t Cols>
constexpr void add_bias_rows(T* y, const matrix<T, 1, Cols>& b) noexcept {
  for (std::size_t i = 0; i < Rows; ++i)
    for (std::size_t j = 0; j < Cols; ++j) y[i * Cols + j] += b.elems[j];
}
}  // namespace detail

/// Causal multi-head attention for N new tokens that follow the cache's: their keys and values
/// are appended, and each new token attends to every cached token and to the new ones up to
/// itself. Bit for bit the rows `att` gives for the whole sequence: each score, softmax and
/// weighted sum runs over the same terms in the same order (a full pass also adds the masked
/// positions' zeros, which change no bits). Evaluation mode; N > room left is a compile error
/// in constant evaluation and an assertion (and no change) at run time.
template <class T, std::size_t DIn, std::size_t DOut, std::size_t Heads, std::size_t Ctx, bool QkvBias,
          std::size_t Capacity, std::size_t N>
constexpr matrix<T, N, DOut> attend_cached(const multi_head_attention<T, DIn, DOut, Heads, Ctx, QkvBias>& att,
                                           kv_cache<T, Capacity, DOut>& cache, const matrix<T, N, DIn>& x) noexcept {
  static_assert(Capacity <= Ctx, "attend_cached(att, cache, x) requires a cache capacity <= the context_length");
  static_assert(tokens_within_context_length<N, Capacity>,
                "attend_cached(att, cache, x) requires N <= the cache's capacity");
  matrix<T, N, DOut> context;
  if (!detail::check_cache_room<Capacity>(cache.length, N)) return context;
  const std::size_t first = cache.length;
  matrix<T, N, DOut> queries = matmul(x, att.W_query);
  matrix<T, N, DOut> keys = matmul(x, att.W_key);
  T* values = cache.values.elems + first * DOut;
  detail::matmul_kernel<T, N, DIn, DOut>(x.elems, att.W_value.elems, values);
  if constexpr (QkvBias) {
    detail::add_bias_rows<T, N, DOut>(queries.elems, att.b_query);
    detail::add_bias_rows<T, N, DOut>(keys.elems, att.b_key);
    detail::add_bias_rows<T, N, DOut>(values, att.b_value);
  }
  detail::store_keys(cache, first, N, keys.elems);
  T scores[Capacity]{};
  detail::attend_rows<T, DOut, Heads, Capacity, N>(queries.elems, cache, first, context.elems, scores);
  cache.length = first + N;
  matrix<T, N, DOut> result = matmul(context, att.W_out);
  detail::add_bias_rows<T, N, DOut>(result.elems, att.b_out);
  return result;
}

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
    detail::store_keys(cache, first, Rows, keys);
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
    detail::attend_rows<T, DOut, Heads, Capacity, Rows>(queries, cache, first, context, scores);
    T* y = out.elems + first * DOut;
    detail::matmul_kernel<T, Rows, DOut, DOut>(context, att.W_out.elems, y);
    detail::add_bias_rows<T, Rows, DOut>(y, att.b_out);
  };
  for (std::size_t b = 0; b < whole; ++b) run_block.template operator()<block>(b * block);
  if constexpr (whole * block < N) run_block.template operator()<N - whole * block>(whole * block);
}

}  // namespace static_attention

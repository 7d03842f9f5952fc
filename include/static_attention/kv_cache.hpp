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
  /// Row p is the key of the token at position p.
  matrix<T, Capacity, D> keys;
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

/// Causal multi-head attention for N new tokens that follow the cache's: their keys and values
/// are appended, and each new token attends to every cached token and to the new ones up to
/// itself. Bit for bit the rows `att` gives for the whole sequence: each score, softmax and
/// weighted sum runs over the same terms in the same order (a full pass also adds the masked
/// positions' zeros, which change no bits). Evaluation mode; N > room left is a compile error
/// in constant evaluation and an assertion (and no change) at run time.
template <class T, std::size_t DIn, std::size_t DOut, std::size_t Heads, std::size_t Ctx, bool QkvBias,
          std::size_t Capacity, std::size_t N>
constexpr matrix<T, N, DOut> attend_cached(const multi_head_attention<T, DIn, DOut, Heads, Ctx, QkvBias>& att,
                                           kv_cache<T, Capacity, DOut>& cache,
                                           const matrix<T, N, DIn>& x) noexcept {
  static_assert(Capacity <= Ctx, "attend_cached(att, cache, x) requires a cache capacity <= the context_length");
  static_assert(tokens_within_context_length<N, Capacity>,
                "attend_cached(att, cache, x) requires N <= the cache's capacity");
  matrix<T, N, DOut> context;
  if (!detail::check_cache_room<Capacity>(cache.length, N)) return context;
  const auto queries = matmul(x, att.W_query);
  const auto projected_keys = matmul(x, att.W_key);
  const auto projected_values = matmul(x, att.W_value);
  const std::size_t first = cache.length;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < DOut; ++j) {
      T key = projected_keys.elems[i * DOut + j];
      T value = projected_values.elems[i * DOut + j];
      if constexpr (QkvBias) {
        key += att.b_key.elems[j];
        value += att.b_value.elems[j];
      }
      cache.keys.elems[(first + i) * DOut + j] = key;
      cache.values.elems[(first + i) * DOut + j] = value;
    }
  constexpr std::size_t head_dim = DOut / Heads;
  constexpr T scale = detail::sqrt_dk<T, head_dim>();
  T weights[Capacity]{};
  for (std::size_t i = 0; i < N; ++i) {
    const std::size_t seen = first + i + 1;  // positions 0 .. first + i
    for (std::size_t h = 0; h < Heads; ++h) {
      const std::size_t offset = h * head_dim;
      T query[head_dim]{};
      for (std::size_t k = 0; k < head_dim; ++k) {
        query[k] = queries.elems[i * DOut + offset + k];
        if constexpr (QkvBias) query[k] += att.b_query.elems[offset + k];
      }
      for (std::size_t p = 0; p < seen; ++p) {
        const T* key = cache.keys.elems + p * DOut + offset;
        T dot{};
        for (std::size_t k = 0; k < head_dim; ++k) dot += detail::rounded_product(query[k], key[k]);
        weights[p] = dot / scale;
      }
      detail::softmax_rows<T>(weights, weights, 1, seen);
      T* out = context.elems + i * DOut + offset;
      for (std::size_t p = 0; p < seen; ++p) {
        const T* value = cache.values.elems + p * DOut + offset;
        for (std::size_t k = 0; k < head_dim; ++k) out[k] += detail::rounded_product(weights[p], value[k]);
      }
    }
  }
  cache.length = first + N;
  matrix<T, N, DOut> result = matmul(context, att.W_out);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < DOut; ++j) result.elems[i * DOut + j] += att.b_out.elems[j];
  return result;
}

}  // namespace static_attention

// SPDX-License-Identifier: BSL-1.0
// The one causal multi-head attention engine: queries against keys and values held in a store
// (a kv_cache's, or a forward pass's own), head by head and row by row. Every caller runs
// through it: the full forward pass (causal_attention, multi_head_attention, transformer_block,
// gpt_model), the chunked prefill, the decode step and attend_into.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/detail/kernel_simd.hpp>
#include <static_attention/core/detail/mve_kernels.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/softmax.hpp>
#include <static_attention/nn/detail/attention_core.hpp>

// Loops over sums held in registers are unrolled whole (else an array of sums lives in memory).
#if defined(__GNUC__)
#define SA_DETAIL_UNROLL_SUMS _Pragma("GCC unroll 16")
#else
#define SA_DETAIL_UNROLL_SUMS
#endif

namespace static_attention::detail {

// Keys of `rows` tokens (rows x D, row-major) into a transposed store (D x Capacity) at
// columns first, first + 1, ...: feature k of position p sits at k * Capacity + p.
template <std::size_t Capacity, std::size_t D, class T>
constexpr void store_keys(T* keys_t, std::size_t first, std::size_t rows, const T* keys) noexcept {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < D; ++j) keys_t[j * Capacity + first + i] = keys[i * D + j];
}

// Rows x Cols values at y, plus the bias row b added to each row.
template <class T, std::size_t Rows, std::size_t Cols>
constexpr void add_bias_rows(T* y, const matrix<T, 1, Cols>& b) noexcept {
  for (std::size_t i = 0; i < Rows; ++i)
    for (std::size_t j = 0; j < Cols; ++j) y[i * Cols + j] += b.elems[j];
}

// Whether the full pass reads its keys in place, row by row (key p's feature k at p D + k),
// rather than from a transposed store: where there are no vectors of positions to load (Cortex-M
// but Helium, whose kernels read the transposed store). No copy, and 4 N D bytes less stack.
template <class T>
inline constexpr bool keys_in_rows =
#if defined(__ARM_FEATURE_MVE)
    false;
#else
    simd::native_lanes<T> < simd::min_lanes<T>;
#endif

// scores[p] = (query . key p) / scale for p < seen, each dot product summed in order of k; key
// p's feature k at keys[k KS + p PS] (a transposed store: KS = Capacity, PS = 1). At run time,
// with a transposed store, vectors of positions: lane p sums its own products in that same order.
template <class T, std::size_t HeadDim, std::size_t KS, std::size_t PS = 1>
constexpr void head_scores(const T* query, const T* keys_t, std::size_t seen, T scale, T* scores) noexcept {
  std::size_t p = 0;
#if defined(__GNUC__)
  constexpr std::size_t lanes = simd::native_lanes<T>;
  if constexpr (lanes >= simd::min_lanes<T> && PS == 1) {
    if (!std::is_constant_evaluated()) {
      using V = simd::vec<T, lanes>;
      for (; p + lanes <= seen; p += lanes) {
        V dot{};
        for (std::size_t k = 0; k < HeadDim; ++k) {
          V key;
          __builtin_memcpy(&key, keys_t + k * KS + p, sizeof(V));
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
    for (std::size_t k = 0; k < HeadDim; ++k) dot += rounded_product(query[k], keys_t[k * KS + p * PS]);
    scores[p] = dot / scale;
  }
}

// Features whose sums weighted_values keeps in registers across positions: in out, which may
// alias weights and values, every step would go through memory.
inline constexpr std::size_t sum_block = 16;

// out[0, NB) += sum over p < seen of weights[p] * values[p D + k], in order of p.
template <class T, std::size_t NB, std::size_t D>
constexpr void weighted_columns(const T* weights, const T* values, std::size_t seen, T* out) noexcept {
  T sums[NB];
  SA_DETAIL_UNROLL_SUMS for (std::size_t k = 0; k < NB; ++k) sums[k] = out[k];
  for (std::size_t q = 0; q < seen; ++q) {
    const T w = weights[q];
    SA_DETAIL_UNROLL_SUMS for (std::size_t k = 0; k < NB; ++k) sums[k] += rounded_product(w, values[q * D + k]);
  }
  SA_DETAIL_UNROLL_SUMS for (std::size_t k = 0; k < NB; ++k) out[k] = sums[k];
}

// out[k] += sum over p < seen of weights[p] * value p [k], in order of p. Positions past seen
// are skipped, not multiplied by a zero weight: a later token's inf or NaN never reaches an
// earlier row. At run time, vectors of features: lane k sums its own products in that order.
template <class T, std::size_t HeadDim, std::size_t D>
constexpr void weighted_values(const T* weights, const T* values, std::size_t seen, T* out) noexcept {
#if defined(__GNUC__)
  constexpr std::size_t lanes = simd::native_lanes<T>;
  if constexpr (lanes >= simd::min_lanes<T> && HeadDim % lanes == 0) {
    if (!std::is_constant_evaluated()) {
      using V = simd::vec<T, lanes>;
      for (std::size_t k0 = 0; k0 < HeadDim; k0 += lanes) {
        V acc;
        __builtin_memcpy(&acc, out + k0, sizeof(V));
        for (std::size_t q = 0; q < seen; ++q) {
          V value;
          __builtin_memcpy(&value, values + q * D + k0, sizeof(V));
          multiply_add(acc, weights[q] - V{}, value);
        }
        __builtin_memcpy(out + k0, &acc, sizeof(V));
      }
      return;
    }
  }
#endif
  constexpr std::size_t full = HeadDim / sum_block * sum_block;
  for (std::size_t k0 = 0; k0 < full; k0 += sum_block)
    weighted_columns<T, sum_block, D>(weights, values + k0, seen, out + k0);
  if constexpr (full < HeadDim) weighted_columns<T, HeadDim - full, D>(weights, values + full, seen, out + full);
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && !defined(STATIC_ATTENTION_FAST_FMA)
// Helium: the softmax of one row of n <= 8192 scores in place, softmax_rows's steps and bits (the
// max, x - max, exp, the sum in order, the divisions), with exp four lanes at a time; done only
// when every score is within 25 of the max (else false, the row untouched). Then every weight is
// at least e^-25 / n >= 2^-50 and at most 1: weights in gemm_f32's range for the weighted sum
// (dropout only zeroes or scales them up).
inline bool softmax_row_in_range(float* x, std::size_t n) noexcept {
  bool has_nan = false;
  const float top = row_max_of(x, n, has_nan);
  if (has_nan || !(top - top == 0.0f)) return false;  // NaN, or an infinite max
  float least = top;
  for (std::size_t j = 0; j < n; ++j) least = x[j] < least ? x[j] : least;
  if (!(least >= top - 25.0f)) return false;
  for (std::size_t j = 0; j < n; ++j) x[j] -= top;
  mve::exp_f32(x, x, n);
  float total = 0.0f;
  for (std::size_t j = 0; j < n; ++j) total += x[j];
  finish_row(x, x, n, n, total);
  return true;
}
#endif

// The most scores (positions squared) causal_attend holds as one block, on x86 only: 1 KiB of
// float, 2 KiB of double.
inline constexpr std::size_t small_causal_block = 256;

/// Causal attention of `rows` query rows (row stride D; head h in columns [h hd, (h + 1) hd))
/// whose keys and values are already in the store at positions first .. first + rows - 1:
/// query i attends to positions 0 .. first + i. `context` (rows x D, zeros on entry) receives
/// the heads' outputs; `scores` is scratch for one row of Capacity weights (with a stride, one row
/// per head, so that threads taking heads [h0, h1) write rows of their own). Head by head, row
/// by row: each score the in-order dot product divided by sqrt(head_dim), each row a softmax
/// over the positions it sees, then `drop` (dropout in training mode: it draws a whole row of
/// `first + rows` weights, in the order a full pass's N x N weights are drawn), each output an
/// in-order weighted sum. A full pass's terms in a full pass's order, less the masked ones.
///
/// KeyRows: keys_t is not a transposed store but the keys themselves, rows x D row-major
/// (keys_in_rows; the full pass).
template <class T, std::size_t D, std::size_t Heads, std::size_t Capacity, class Drop, bool KeyRows = false>
constexpr void causal_attend(const T* queries, std::size_t rows, const T* keys_t, const T* values, std::size_t first,
                             T* context, T* scores, const Drop& drop, std::size_t h0 = 0, std::size_t h1 = Heads,
                             std::size_t scores_stride = 0) noexcept {
  constexpr std::size_t head_dim = D / Heads;
  constexpr T scale = sqrt_dk<T, head_dim>();
  // Key p's feature k of head h at keys_t[h head_dim KS + k KS + p PS].
  constexpr std::size_t KS = KeyRows ? 1 : Capacity;
  constexpr std::size_t PS = KeyRows ? D : 1;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && !defined(STATIC_ATTENTION_FAST_FMA)
  // Helium: vectors of positions and of features where the operands' range keeps every product
  // and sum normal (core/detail/mve_kernels.hpp), checked once for the call (context holds
  // zeros, and other threads' heads: not read); a row's weights are checked as they come.
  if constexpr (std::is_same_v<T, float> && !KeyRows) {
    const std::size_t seen_all = first + rows;
    if (!std::is_constant_evaluated() && seen_all <= 8192 && mve::block_in_range(queries, rows, D, D, -50) &&
        mve::block_in_range(keys_t, D, seen_all, Capacity, -50) && mve::block_in_range(values, seen_all, D, D, -50)) {
      for (std::size_t h = h0; h < h1; ++h) {
        T* row = scores + h * scores_stride;
        for (std::size_t i = 0; i < rows; ++i) {
          const std::size_t seen = first + i + 1;
          mve::row_times_columns_f32<head_dim, Capacity>(queries + i * D + h * head_dim,
                                                         keys_t + h * head_dim * Capacity, seen, row);
          for (std::size_t p = 0; p < seen; ++p) row[p] /= scale;
          T* out = context + i * D + h * head_dim;
          if (softmax_row_in_range(row, seen)) {
            drop.row(row, seen, first + rows);
            mve::add_weighted_rows_f32<head_dim, D>(row, values + h * head_dim, seen, out);
          } else {
            softmax_rows<T>(row, row, 1, seen);
            drop.row(row, seen, first + rows);
            weighted_values<T, head_dim, D>(row, values + h * head_dim, seen, out);
          }
        }
      }
      return;
    }
  }
#endif
  // A few positions on x86's wide vectors (the chapter's 6 tokens): a head's whole causal block
  // of scores, then one softmax over its rows (one exp over whole vectors and one pass of
  // divisions, where a row at a time is a call of its own with a scalar tail), then the
  // weighted values. The same scores, rows and sums in the same order: the same bits. Not with
  // dropout (its draws go row by row), nor past the first position (a decode step: one row).
  if constexpr (std::is_same_v<Drop, no_dropout> && simd::native_bytes >= 32 &&
                Capacity * Capacity <= small_causal_block) {
    if (!std::is_constant_evaluated() && first == 0 && rows > 1 && rows <= Capacity) {
      constexpr std::size_t lanes = simd::native_lanes<T>;
      constexpr std::size_t room = (Capacity * Capacity + lanes - 1) / lanes * lanes;
      T block[room]{};  // zeros: the softmax's exp reads whole vectors past the packed rows
      for (std::size_t h = h0; h < h1; ++h) {
        for (std::size_t i = 0; i < rows; ++i)
          head_scores<T, head_dim, KS, PS>(queries + i * D + h * head_dim, keys_t + h * head_dim * KS, i + 1, scale,
                                           block + i * Capacity);
        softmax_rows_in_room<T, true>(block, rows, Capacity, room);
        for (std::size_t i = 0; i < rows; ++i)
          weighted_values<T, head_dim, D>(block + i * Capacity, values + h * head_dim, i + 1,
                                          context + i * D + h * head_dim);
      }
      return;
    }
  }
  for (std::size_t h = h0; h < h1; ++h) {
    T* row = scores + h * scores_stride;
    for (std::size_t i = 0; i < rows; ++i) {
      const std::size_t seen = first + i + 1;
      head_scores<T, head_dim, KS, PS>(queries + i * D + h * head_dim, keys_t + h * head_dim * KS, seen, scale, row);
      softmax_rows<T>(row, row, 1, seen);
      drop.row(row, seen, first + rows);
      weighted_values<T, head_dim, D>(row, values + h * head_dim, seen, context + i * D + h * head_dim);
    }
  }
}

/// The whole causal pass over one sequence: softmax(mask(q k^T / sqrt(hd))) v per head, the
/// heads side by side, added into `context` (zeros on entry), through causal_attend with the
/// sequence's own key store.
template <std::size_t Heads, class T, std::size_t N, std::size_t D, class Drop>
constexpr void causal_heads_into(matrix<T, N, D>& context, const matrix<T, N, D>& queries, const matrix<T, N, D>& keys,
                                 const matrix<T, N, D>& values, const Drop& drop) noexcept {
  T scores[N]{};
  if constexpr (keys_in_rows<T>) {
    causal_attend<T, D, Heads, N, Drop, true>(queries.elems, N, keys.elems, values.elems, 0, context.elems, scores,
                                              drop);
  } else {
    matrix<T, D, N> keys_t{uninitialized};  // store_keys writes every element
    store_keys<N, D>(keys_t.elems, 0, N, keys.elems);
    causal_attend<T, D, Heads, N>(queries.elems, N, keys_t.elems, values.elems, 0, context.elems, scores, drop);
  }
}

/// causal_heads_into a context of zeros, returned.
template <std::size_t Heads, class T, std::size_t N, std::size_t D, class Drop>
constexpr matrix<T, N, D> causal_heads(const matrix<T, N, D>& queries, const matrix<T, N, D>& keys,
                                       const matrix<T, N, D>& values, const Drop& drop) noexcept {
  matrix<T, N, D> context;
  causal_heads_into<Heads>(context, queries, keys, values, drop);
  return context;
}

}  // namespace static_attention::detail

#undef SA_DETAIL_UNROLL_SUMS

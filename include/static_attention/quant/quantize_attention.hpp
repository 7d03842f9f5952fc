// SPDX-License-Identifier: BSL-1.0
// int8 post-training quantization of a multi_head_attention at compile time: calibrate(),
// quantize() and the quantized_multi_head_attention they give. See docs/quantization.md for the
// scheme, its error tables and where it differs from TFLM / CMSIS-NN.
#pragma once

#include <cstddef>
#include <cstdint>

#include <boost/hana/for_each.hpp>

#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>
#include <static_attention/nn/detail/attention_core.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/quant/detail/quant_core.hpp>
#include <static_attention/quant/detail/quant_softmax.hpp>
#include <static_attention/quant/quantized_kv_cache.hpp>

namespace static_attention {

/// The real range [lo, hi] of one activation over the calibration inputs (min/max).
struct value_range {
  double lo = 0.0;
  double hi = 0.0;

  constexpr void observe(float x) noexcept {
    const auto v = static_cast<double>(x);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  template <class M>
  constexpr void observe_all(const M& m) noexcept {
    for (const auto x : m.elems) observe(x);
  }
  /// Widens the range to include another (two calibrations as one).
  constexpr void observe_range(const value_range& other) noexcept {
    if (other.lo < lo) lo = other.lo;
    if (other.hi > hi) hi = other.hi;
  }
  friend constexpr bool operator==(const value_range&, const value_range&) = default;
};

/// What calibration records for a multi_head_attention: the range of every activation that is
/// quantized per tensor. The ranges start at [0, 0], so each includes 0.
struct attention_ranges {
  value_range input;    // x
  value_range query;    // x W_query (+ b_query)
  value_range key;      // x W_key (+ b_key)
  value_range value;    // x W_value (+ b_value)
  value_range context;  // the heads' context vectors, concatenated (the input of W_out)
  friend constexpr bool operator==(const attention_ranges&, const attention_ranges&) = default;
};

/// What one call of quantized_multi_head_attention::append_integer works in besides the cache:
/// up to MaxRows rows of centred query codes and of context codes, and one row of Capacity
/// scores and Q15 probabilities.
template <std::size_t MaxRows, std::size_t D, std::size_t Capacity>
struct quantized_attention_buffers {
  /// Centred query codes, a row per new token.
  matrix<std::int16_t, MaxRows, D> queries;
  /// The heads' context codes (int8), a row per new token: the input of W_out.
  matrix<std::int8_t, MaxRows, D> context;
  /// One row of integer scores and of Q15 probabilities.
  matrix<std::int32_t, 1, Capacity> scores;
  matrix<std::uint16_t, 1, Capacity> probs;
};

namespace detail {
// The fixed-point constants of the int8 attention's scores and context sums.
struct attention_multipliers {
  fixed_multiplier score;    // score differences to exponents of 2 in Q16
  fixed_multiplier context;  // Q15 probabilities times centred values to context codes
  std::int32_t context_zero_point;
};

// The one int8 causal attention engine, as causal_attend is the float one: `rows` query rows of
// centred codes (row stride D; head h in columns [h hd, (h + 1) hd)) whose keys and values are
// already in the store (row p = position p) at positions first .. first + rows - 1. Head by
// head, row by row: query i's int32 scores against positions 0 .. first + i (the masked ones
// skipped, never computed), an integer softmax to Q15 probabilities, and each context code the
// requantized sum of probabilities times centred values. Context accumulators: the
// probabilities of a row sum to 2^15 within first + i + 1 (each rounded to nearest), times
// |v| <= 255: < 2^24.
template <std::size_t D, std::size_t Heads, std::size_t Capacity>
constexpr void quantized_causal_attend(const std::int16_t* queries, std::size_t rows, const std::int16_t* keys,
                                       const std::int16_t* values, std::size_t first, attention_multipliers m,
                                       std::int8_t* context, std::int32_t* scores, std::uint16_t* probs) noexcept {
  constexpr std::size_t head_dim = D / Heads;
  for (std::size_t h = 0; h < Heads; ++h) {
    const std::size_t offset = h * head_dim;
    for (std::size_t i = 0; i < rows; ++i) {
      const std::size_t seen = first + i + 1;
      for (std::size_t p = 0; p < seen; ++p)
        scores[p] = dot_int<head_dim>(queries + i * D + offset, keys + p * D + offset);
      softmax_q15<Capacity>(scores, seen, m.score, probs);
      for (std::size_t c = 0; c < head_dim; ++c) {
        std::int32_t acc = 0;
        for (std::size_t p = 0; p < seen; ++p) acc += std::int32_t{probs[p]} * values[p * D + offset + c];
        context[i * D + offset + c] = requantize_int8(acc, m.context, m.context_zero_point);
      }
    }
  }
}
}  // namespace detail

/// The int8 form of multi_head_attention<float, d_in, d_out, num_heads, context_length, ...>
/// (causal, evaluation mode), as quantize() makes it. A literal type: a constexpr variable, a
/// static_assert operand, a `static const` in flash.
///
///   x (float) -> int8 codes (input) -> Q, K, V: int8 per-channel weights, int32 accumulators,
///   requantized to int8 per tensor -> per head: int32 scores -> integer softmax (Q15
///   probabilities) -> int32 context, requantized to int8 -> W_out: int32 accumulators ->
///   float, one product by a per-channel scale.
///
/// Only the two ends touch a float: quantize_input (one rounded product and an exact rounding per
/// element) and dequantize_output (one product per element); forward_integer is integer-only.
template <std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length = no_context_limit>
struct quantized_multi_head_attention {
  static_assert(d_out_divisible_by_num_heads<d_out, num_heads>,
                "quantized_multi_head_attention<d_in, d_out, num_heads> requires d_out % num_heads == 0");
  /// Columns per head.
  static constexpr std::size_t head_dim = num_heads > 0 ? d_out / num_heads : 0;
  // Scores are sums of head_dim products of centred codes (|.| <= 255 each): < 2^30.
  static_assert(head_dim <= 16512, "quantized_multi_head_attention requires head_dim <= 16512 (int32 scores)");

  /// What it takes and gives: float, like the model it was quantized from.
  using value_type = float;
  static constexpr std::size_t in_features = d_in;
  static constexpr std::size_t out_features = d_out;
  static constexpr std::size_t max_tokens = context_length;

  /// Input codes: x_q = round(x / input.scale) + input.zero_point, saturated.
  quant_params input;
  /// 1 / input.scale, rounded to float once.
  float input_inverse_scale = 1.0f;
  /// Per-tensor parameters of the projections and of the concatenated context vectors.
  quant_params query;
  quant_params key;
  quant_params value;
  quant_params context;
  /// int8 weights (nn.Linear layout, d_out x d_in), symmetric per output channel, and int32 biases.
  quantized_linear<d_in, d_out> W_query;
  quantized_linear<d_in, d_out> W_key;
  quantized_linear<d_in, d_out> W_value;
  /// Accumulators to int8 Q, K, V: per-channel multipliers s_x s_wj / s_q (s_k, s_v).
  requantizer<d_out> query_requant;
  requantizer<d_out> key_requant;
  requantizer<d_out> value_requant;
  /// Score differences to exponents of 2 in Q16: s_q s_k log2(e) / sqrt(head_dim) 2^16.
  fixed_multiplier score_multiplier;
  /// Q15 probabilities times centred value codes to context codes: s_v 2^-15 / s_context.
  fixed_multiplier context_multiplier;
  /// Output projection: int8 weights per output channel, the bias b_out as int32.
  quantized_linear<d_out, d_out> W_out;
  /// Accumulator j to float: s_context s_wout_j, rounded to float once.
  matrix<float, 1, d_out> output_scale;

  /// x (N x d_in, float) -> N x d_out (float), comparable with the float model's output.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<float, N, d_out> operator()(const matrix<U, N, D>& x) const noexcept {
    if constexpr (detail::input_fits<float, d_in, context_length, U, N, D>())
      return dequantize_output(forward_integer(quantize_input(x)));
    else
      return {};
  }

  /// A batch, item by item.
  template <class U, std::size_t B, std::size_t N, std::size_t D>
  constexpr tensor<float, B, N, d_out> operator()(const tensor<U, B, N, D>& x) const noexcept {
    return detail::per_item(x, *this);
  }

  /// The input codes of x.
  template <std::size_t N>
  constexpr matrix<std::int8_t, N, d_in> quantize_input(const matrix<float, N, d_in>& x) const noexcept {
    matrix<std::int8_t, N, d_in> q;
    for (std::size_t k = 0; k < N * d_in; ++k)
      q.elems[k] = detail::quantize_value(x.elems[k], input_inverse_scale, input.zero_point);
    return q;
  }

  /// The forward pass on input codes, integer-only: the output projection's int32 accumulators
  /// (output j is accumulator j times output_scale j). The N rows run through append_integer
  /// with a cache of their own: the cached pass's arithmetic, in the same order.
  template <std::size_t N>
  constexpr matrix<std::int32_t, N, d_out> forward_integer(const matrix<std::int8_t, N, d_in>& x) const noexcept {
    detail::check_input<d_in, context_length, N, d_in>();
    matrix<std::int32_t, N, d_out> out;
    if constexpr (N > 0) {
      quantized_kv_cache<N, d_out> cache;
      quantized_attention_buffers<N, d_out, N> buffers;
      append_integer<N>(x.elems, cache, buffers, out.elems);
    }
    return out;
  }

  /// Rows new tokens after the cache's `length` tokens (their input codes at x, Rows x d_in):
  /// their centred keys and values appended to the cache, their output accumulators written to
  /// out (Rows x d_out). Row i attends to positions 0 .. length + i: the rows forward_integer
  /// gives for the whole sequence, bit for bit. The caller checks length + Rows <= Capacity.
  template <std::size_t Rows, std::size_t MaxRows, std::size_t Capacity>
  constexpr void append_integer(const std::int8_t* x, quantized_kv_cache<Capacity, d_out>& cache,
                                quantized_attention_buffers<MaxRows, d_out, Capacity>& buffers,
                                std::int32_t* out) const noexcept {
    static_assert(Rows <= MaxRows, "append_integer<Rows>(x, cache, buffers, out) requires Rows <= the buffers' rows");
    const std::size_t first = cache.length;
    project<Rows>(W_query, query_requant, x, buffers.queries.elems);
    project<Rows>(W_key, key_requant, x, cache.keys.elems + first * d_out);
    project<Rows>(W_value, value_requant, x, cache.values.elems + first * d_out);
    cache.length = first + Rows;
    detail::quantized_causal_attend<d_out, num_heads, Capacity>(
        buffers.queries.elems, Rows, cache.keys.elems, cache.values.elems, first,
        {score_multiplier, context_multiplier, context.zero_point}, buffers.context.elems, buffers.scores.elems,
        buffers.probs.elems);
    W_out.accumulate_rows(buffers.context.elems, Rows, out);
  }

  /// Output accumulators to float.
  template <std::size_t N>
  constexpr matrix<float, N, d_out> dequantize_output(const matrix<std::int32_t, N, d_out>& acc) const noexcept {
    matrix<float, N, d_out> y;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < d_out; ++j)
        y.elems[i * d_out + j] = detail::dequantize_value(acc.elems[i * d_out + j], output_scale.elems[j]);
    return y;
  }

  friend constexpr bool operator==(const quantized_multi_head_attention&,
                                   const quantized_multi_head_attention&) = default;

 private:
  // Rows of input codes to centred codes (code - zero point, in [-255, 255]) of one projection,
  // two rows at a time (accumulate_rows: each weight read once for both).
  template <std::size_t Rows>
  static constexpr void project(const quantized_linear<d_in, d_out>& w, const requantizer<d_out>& r,
                                const std::int8_t* x, std::int16_t* out) noexcept {
    constexpr std::size_t pair = Rows >= 2 ? 2 : 1;
    std::int32_t acc[pair * d_out]{};
    for (std::size_t i = 0; i < Rows; i += pair) {
      const std::size_t rows = Rows - i < pair ? Rows - i : pair;
      w.accumulate_rows(x + i * d_in, rows, acc);
      for (std::size_t k = 0; k < rows * d_out; ++k)
        out[i * d_out + k] = static_cast<std::int16_t>(std::int32_t{r(acc[k], k % d_out)} - r.zero_point);
    }
  }
};

namespace detail {
inline constexpr double log2_e = 1.4426950408889634;

template <std::size_t DOut, bool QkvBias, class Model>
constexpr const matrix<float, 1, DOut>* qkv_bias_of(const Model& m, int which) noexcept {
  if constexpr (QkvBias) return which == 0 ? &m.b_query : (which == 1 ? &m.b_key : &m.b_value);
  (void)m;
  (void)which;
  return nullptr;
}

// Records the ranges of one sequence and returns its context vectors (the input of W_out).
template <std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length, bool qkv_bias,
          std::size_t N>
constexpr matrix<float, N, d_out> observe_attention(
    const multi_head_attention<float, d_in, d_out, num_heads, context_length, qkv_bias>& m,
    const matrix<float, N, d_in>& x, attention_ranges& r) noexcept {
  r.input.observe_all(x);
  const auto queries = project(x, m.W_query, qkv_bias_of<d_out, qkv_bias>(m, 0));
  const auto keys = project(x, m.W_key, qkv_bias_of<d_out, qkv_bias>(m, 1));
  const auto values = project(x, m.W_value, qkv_bias_of<d_out, qkv_bias>(m, 2));
  r.query.observe_all(queries);
  r.key.observe_all(keys);
  r.value.observe_all(values);
  const matrix<float, N, d_out> context = causal_heads<num_heads>(queries, keys, values, no_dropout{});
  r.context.observe_all(context);
  return context;
}
}  // namespace detail

/// Min/max calibration: runs the float model on each of the B calibration sequences and records
/// the range of each activation quantize() quantizes. Costly in constant evaluation (B float
/// forward passes): keep its result in a constexpr variable of its own.
template <std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length, bool qkv_bias,
          std::size_t B, std::size_t N, std::size_t D>
constexpr attention_ranges calibrate(
    const multi_head_attention<float, d_in, d_out, num_heads, context_length, qkv_bias>& model,
    const tensor<float, B, N, D>& calibration) noexcept {
  attention_ranges r;
  if constexpr (detail::input_fits<float, d_in, context_length, float, N, D>())
    for (std::size_t b = 0; b < B; ++b) (void)detail::observe_attention(model, calibration[b], r);
  return r;
}

/// Quantizes a float multi_head_attention with the activation ranges of calibrate(): int8
/// weights, symmetric per output channel; int8 activations, asymmetric per tensor, from the
/// ranges; int32 biases; fixed-point multipliers. A constant evaluation stops (naming
/// quantize_multiplier_out_of_range or quantized_bias_out_of_range) when a multiplier or bias
/// cannot be represented.
template <std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length, bool qkv_bias>
constexpr quantized_multi_head_attention<d_in, d_out, num_heads, context_length> quantize(
    const multi_head_attention<float, d_in, d_out, num_heads, context_length, qkv_bias>& model,
    const attention_ranges& ranges) noexcept {
  constexpr std::size_t head_dim = d_out / num_heads;
  quantized_multi_head_attention<d_in, d_out, num_heads, context_length> q;
  q.input = detail::choose_params(ranges.input.lo, ranges.input.hi);
  q.input_inverse_scale = detail::inverse(q.input.scale);
  q.query = detail::choose_params(ranges.query.lo, ranges.query.hi);
  q.key = detail::choose_params(ranges.key.lo, ranges.key.hi);
  q.value = detail::choose_params(ranges.value.lo, ranges.value.hi);
  q.context = detail::choose_params(ranges.context.lo, ranges.context.hi);

  double s_q[d_out]{};
  double s_k[d_out]{};
  double s_v[d_out]{};
  double s_o[d_out]{};
  q.W_query = detail::quantize_linear(model.W_query, detail::qkv_bias_of<d_out, qkv_bias>(model, 0), q.input, s_q);
  q.W_key = detail::quantize_linear(model.W_key, detail::qkv_bias_of<d_out, qkv_bias>(model, 1), q.input, s_k);
  q.W_value = detail::quantize_linear(model.W_value, detail::qkv_bias_of<d_out, qkv_bias>(model, 2), q.input, s_v);
  q.query_requant = detail::make_requantizer(q.input, s_q, q.query);
  q.key_requant = detail::make_requantizer(q.input, s_k, q.key);
  q.value_requant = detail::make_requantizer(q.input, s_v, q.value);

  const double sqrt_head_dim = static_attention::sqrt(static_cast<double>(head_dim));
  q.score_multiplier = detail::quantize_multiplier(
      static_cast<double>(q.query.scale) * static_cast<double>(q.key.scale) * detail::log2_e / sqrt_head_dim * 0x1p16);
  q.context_multiplier =
      detail::quantize_multiplier(static_cast<double>(q.value.scale) * 0x1p-15 / static_cast<double>(q.context.scale));

  q.W_out = detail::quantize_linear(model.W_out, &model.b_out, q.context, s_o);
  for (std::size_t j = 0; j < d_out; ++j)
    q.output_scale.elems[j] = static_cast<float>(static_cast<double>(q.context.scale) * s_o[j]);
  return q;
}

/// Post-training quantization in one call: quantize(model, calibrate(model, calibration)).
template <std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length, bool qkv_bias,
          std::size_t B, std::size_t N, std::size_t D>
constexpr quantized_multi_head_attention<d_in, d_out, num_heads, context_length> quantize(
    const multi_head_attention<float, d_in, d_out, num_heads, context_length, qkv_bias>& model,
    const tensor<float, B, N, D>& calibration) noexcept {
  return quantize(model, calibrate(model, calibration));
}

}  // namespace static_attention

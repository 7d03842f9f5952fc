// SPDX-License-Identifier: BSL-1.0
// Integer-only LayerNorm and GELU for the quantized GPT.
//
// LayerNorm: int16 residual codes in, int8 codes out. The mean and variance are integer sums,
// the standard deviation an integer square root (bit by bit, exact floor), its reciprocal one
// integer division per row in Q31 (so a row costs one division, not one per feature), and the
// affine part a per-feature Q(gain_bits) gain and an offset, rounded once.
//
// GELU: a 256-entry int8 -> int8 table, built at compile time from the float tanh-GELU. For int8
// in and out a table is exact: each entry is the float GELU of its input code, rounded to the
// nearest output code (I-BERT's i-GELU polynomial would add its own error on top).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/quant/detail/quant_core.hpp>

namespace static_attention {

namespace detail {

// Deliberately not constexpr (see quant_core.hpp): stops a constant evaluation, naming the value.
inline void layer_norm_gain_out_of_range(double) noexcept {}

/// floor(sqrt(v)) for every uint32 v, digit by digit (two bits of v per bit of the root) in 32-bit
/// arithmetic: exact, no division, no float; result + bit < 2^31 never wraps.
constexpr std::uint32_t isqrt_u32(std::uint32_t v) noexcept {
  std::uint32_t result = 0;
  std::uint32_t bit = std::uint32_t{1} << 30;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= result + bit) {
      v -= result + bit;
      result = (result >> 1) + bit;
    } else {
      result >>= 1;
    }
    bit >>= 2;
  }
  return result;
}

/// floor(sqrt(v)) for every uint64 v: one step of Zimmermann's Karatsuba square root in base
/// 2^16 on top of isqrt_u32, so 16 digit steps in 32-bit registers and one 32-bit division
/// instead of 32 digit steps in 64-bit arithmetic. v is first shifted left by an even 2h into
/// w in [2^62, 2^64) (the theorem's normalisation: top digit >= 2^14), and floor(sqrt(w)) >> h =
/// floor(sqrt(v)) (floor(floor(2x) / 2) = floor(x), h times). With w = t 2^32 + a1 2^16 + a0:
/// s1 = isqrt(t) in [2^15, 2^16), r1 = t - s1^2 <= 2 s1; q, u = divmod(r1 2^16 + a1, 2 s1)
/// (the numerator < 2^33, so halved it fits 32 bits: floor(floor(n / 2) / s1) = floor(n / 2s1));
/// s = s1 2^16 + q, less one when u 2^16 + a0 < q^2. s <= 2^32 before that correction: 64-bit.
/// Checked against the digit-by-digit uint64 root on 2.9e8 inputs (all below 2^24 and above
/// 2^64 - 2^22, every square +-1 for roots below 2^22 and above 2^32 - 2^22, random roots and
/// values of every length).
constexpr std::uint32_t isqrt_u64(std::uint64_t v) noexcept {
  if (v == 0) return 0;
  const int half = std::countl_zero(v) / 2;
  const std::uint64_t w = v << (2 * half);
  const auto top = static_cast<std::uint32_t>(w >> 32);
  const std::uint32_t s1 = isqrt_u32(top);
  const std::uint32_t r1 = top - s1 * s1;
  const std::uint64_t num = (std::uint64_t{r1} << 16) | ((w >> 16) & 0xFFFFu);
  const std::uint32_t q = static_cast<std::uint32_t>(num >> 1) / s1;
  const std::uint64_t u = num - std::uint64_t{q} * (2 * std::uint64_t{s1});
  std::uint64_t s = (std::uint64_t{s1} << 16) + q;
  if (((u << 16) | (w & 0xFFFFu)) < std::uint64_t{q} * q) --s;
  return static_cast<std::uint32_t>(s >> half);
}

/// The number of significant bits of v (0 for 0): std::bit_width, a count of leading zeros.
constexpr int bit_length(std::uint64_t v) noexcept { return static_cast<int>(std::bit_width(v)); }

/// round(v / 2^right), halves up; right in [1, 62] and |v| < 2^62, so v + 2^(right - 1) fits.
constexpr std::int64_t rounding_shift(std::int64_t v, int right) noexcept {
  return (v + (std::int64_t{1} << (right - 1))) >> right;  // arithmetic shift (C++20)
}

}  // namespace detail

/// Integer-only LayerNorm over D features: int16 codes of scale `input_scale` (zero point 0)
/// in, int8 codes (`output`) out. For a row x with c_j = D x_j - sum_k x_k and
/// S = sum_j c_j^2 + eps_term (eps_term = eps D^3 / s_x^2: eps in code units),
///   (x_j - mean) / sqrt(var + eps) = sqrt(D) c_j / sqrt(S),
/// so the output code is z_y + round(t_j gain_j 2^-gain_bits + offset_j 2^-16) with
/// t_j = c_j 2^k / isqrt(S 4^k) in Q24 (k normalises S to 61-62 bits, so the root has 31), gain_j = gamma_j sqrt(D) /
/// s_y and offset_j = beta_j / s_y. Ranges (D <= 1024): |sum| <= 2^25, |c_j| <= D 2^16 <= 2^26, S <= D^3 2^32 + 2^62 <
/// 2^64 (unsigned); |c_j| 2^k <= isqrt(S 4^k) = sigma, so |t_j| <= 2^24 + 1; |gain| < 2^30 and |offset| < 2^30 keep t
/// gain + offset 2^(8 + gain_bits) within 2^55 + 2^62 < 2^63.
template <std::size_t D>
struct quantized_layer_norm {
  static_assert(D > 0 && D <= 1024, "quantized_layer_norm<D> requires 0 < D <= 1024 (64-bit sums of squares)");
  /// Fraction bits of t_j = c_j / sqrt(S).
  static constexpr int norm_bits = 24;
  /// Fraction bits of offset.
  static constexpr int offset_bits = 16;

  /// eps in the units of S: round(eps D^3 / input_scale^2), at least 1 (so S > 0).
  std::uint64_t eps_term = 1;
  /// gamma_j sqrt(D) / s_y in Q(gain_bits), |gain_j| < 2^30.
  matrix<std::int32_t, 1, D> gain;
  /// beta_j / s_y in Q16, |offset_j| < 2^30.
  matrix<std::int32_t, 1, D> offset;
  /// Fraction bits of gain, in [0, 24]: as many as keep every |gain_j| below 2^30.
  std::int32_t gain_bits = 0;
  /// The output's scale and zero point.
  quant_params output;

  /// One row of D int16 codes x to D int8 codes y.
  constexpr void normalize_row(const std::int16_t* x, std::int8_t* y) const noexcept {
    std::int32_t sum = 0;
    for (std::size_t j = 0; j < D; ++j) sum += x[j];
    std::int32_t c[D]{};
    std::uint64_t squares = eps_term;
    for (std::size_t j = 0; j < D; ++j) {
      c[j] = static_cast<std::int32_t>(D) * x[j] - sum;
      squares += static_cast<std::uint64_t>(std::int64_t{c[j]} * c[j]);
    }
    // sqrt(S) 2^k with 31 significant bits: S 4^k in [2^60, 2^62) (squares >= 1), unless S is
    // larger already (k = 0).
    const int bits = detail::bit_length(squares);
    const int k = bits < 62 ? (62 - bits) / 2 : 0;
    const std::uint32_t sigma = detail::isqrt_u64(squares << (2 * k));  // >= 1
    const int length = detail::bit_length(sigma);  // sigma in [2^(length-1), 2^length), length <= 32
    // The reciprocal in Q(length + 30): inverse in (2^30, 2^31], one division per row.
    const std::int64_t inverse = (std::int64_t{1} << (length + 30)) / sigma;
    // t = c 2^k / sigma in Q24; length >= 31 when k > 0 (k <= 30), so the shift is >= 7.
    const int t_shift = length + 30 - norm_bits - k;
    const int out_shift = norm_bits + gain_bits;  // [24, 48]
    const std::int64_t offset_unit = std::int64_t{1} << (out_shift - offset_bits);
    for (std::size_t j = 0; j < D; ++j) {
      const std::int64_t t = detail::rounding_shift(std::int64_t{c[j]} * inverse, t_shift);  // |c inv| < 2^57
      // |t| <= 2^24 + 1: one 32 x 32 -> 64 product; offset_unit is a power of two.
      const std::int64_t acc =
          std::int64_t{static_cast<std::int32_t>(t)} * gain.elems[j] + std::int64_t{offset.elems[j]} * offset_unit;
      y[j] = static_cast<std::int8_t>(detail::clamp_i32(detail::rounding_shift(acc, out_shift) + output.zero_point,
                                                        detail::int8_min, detail::int8_max));
    }
  }

  friend constexpr bool operator==(const quantized_layer_norm&, const quantized_layer_norm&) = default;
};

/// GELU on int8 codes: a table of the 256 input codes' outputs, the float tanh-GELU of each input
/// code's real value rounded to the nearest output code. `output` spans GELU over the whole
/// input range, so no entry saturates.
struct quantized_gelu {
  /// table[c + 128] is the output code of input code c.
  matrix<std::int8_t, 1, 256> table;
  /// The output's scale and zero point.
  quant_params output;

  /// The output code of input code c.
  constexpr std::int8_t operator()(std::int8_t c) const noexcept { return table.elems[c + 128]; }

  friend constexpr bool operator==(const quantized_gelu&, const quantized_gelu&) = default;
};

namespace detail {

/// The integer LayerNorm of a float one, for int16 inputs of scale input_scale and the output
/// parameters chosen by calibration. A constant evaluation stops at layer_norm_gain_out_of_range
/// (|gamma| sqrt(D) / s_y >= 2^30) or quantized_bias_out_of_range (|beta| / s_y >= 2^14).
template <std::size_t D>
constexpr ::static_attention::quantized_layer_norm<D> quantize_layer_norm(const layer_norm<float, D>& ln,
                                                                          double input_scale,
                                                                          quant_params output) noexcept {
  ::static_attention::quantized_layer_norm<D> q;
  q.output = output;
  const double d = static_cast<double>(D);
  const double eps = static_cast<double>(layer_norm<float, D>::eps) * d * d * d / (input_scale * input_scale);
  q.eps_term = eps >= 0x1p62 ? std::uint64_t{1} << 62 : static_cast<std::uint64_t>(round_away(eps));
  if (q.eps_term == 0) q.eps_term = 1;
  const double s_y = static_cast<double>(output.scale);
  const double root_d = static_attention::sqrt(d);
  double peak = 0.0;
  for (std::size_t j = 0; j < D; ++j) {
    const double g = abs_d(static_cast<double>(ln.scale.elems[j])) * root_d / s_y;
    if (g > peak) peak = g;
  }
  if (!(peak < 0x1p30)) layer_norm_gain_out_of_range(peak);
  std::int32_t bits = 24;
  double unit = 0x1p24;
  while (bits > 0 && peak * unit >= 0x1p30) {
    --bits;
    unit /= 2.0;
  }
  q.gain_bits = bits;
  for (std::size_t j = 0; j < D; ++j) {
    q.gain.elems[j] =
        static_cast<std::int32_t>(round_away(static_cast<double>(ln.scale.elems[j]) * root_d / s_y * unit));
    const double b = static_cast<double>(ln.shift.elems[j]) / s_y;
    if (!(abs_d(b) < 0x1p14)) quantized_bias_out_of_range(b);
    q.offset.elems[j] = static_cast<std::int32_t>(round_away(b * 0x1p16));  // |.| <= 2^30
  }
  return q;
}

/// The GELU table for input codes of parameters `input`: the output parameters span the 256
/// outputs (widened to include 0); each entry is round(gelu(x) / s_y) + z_y.
constexpr ::static_attention::quantized_gelu make_gelu_table(quant_params input) noexcept {
  ::static_attention::quantized_gelu q;
  double values[256]{};
  double lo = 0.0;
  double hi = 0.0;
  for (std::int32_t c = int8_min; c <= int8_max; ++c) {
    const double x = static_cast<double>(input.scale) * static_cast<double>(c - input.zero_point);
    const double y = gelu_scalar(x);
    values[c + 128] = y;
    if (y < lo) lo = y;
    if (y > hi) hi = y;
  }
  q.output = choose_params(lo, hi);
  const double s = static_cast<double>(q.output.scale);
  for (std::size_t k = 0; k < 256; ++k)
    q.table.elems[k] =
        static_cast<std::int8_t>(clamp_i32(round_away(values[k] / s) + q.output.zero_point, int8_min, int8_max));
  return q;
}

}  // namespace detail
}  // namespace static_attention

// SPDX-License-Identifier: BSL-1.0
// Integer-only softmax: a fixed-point 2^x and a causal row softmax to Q15 probabilities.
//
// Scores arrive as int32 dot products of centred int8 codes. Their differences from the row's
// maximum (<= 0) are scaled by one fixed-point multiplier (s_q s_k log2(e) / sqrt(head_dim),
// in Q16) into t = x log2(e), so that exp(x) = 2^t = 2^floor(t) 2^frac(t): the fraction by a
// degree-4 polynomial in Q30, the integer part by a shift. This is the structure of gemmlowp's
// exp_on_negative_values (which CMSIS-NN's arm_softmax_s8 calls) with base 2 instead of e,
// and of I-BERT's i-exp (which uses a degree-2 polynomial).
#pragma once

#include <cstddef>
#include <cstdint>

#include <static_attention/quant/detail/quant_core.hpp>

namespace static_attention::detail {

/// 2^u for u in [0, 1): Q30 coefficients of 1 + c1 u + c2 u^2 + c3 u^3 + c4 u^4 (c0 = 1 exactly,
/// so 2^0 is exact), fitted for minimal relative error by Lawson's iteration in numpy and
/// rounded to Q30: 2.9e-6 over every Q16 u, in this integer evaluation.
inline constexpr std::int64_t exp2_c0 = std::int64_t{1} << 30;
inline constexpr std::int64_t exp2_c1 = 744151245;
inline constexpr std::int64_t exp2_c2 = 259072572;
inline constexpr std::int64_t exp2_c3 = 56095091;
inline constexpr std::int64_t exp2_c4 = 14416692;

/// Fraction bits of the exponent t and of exp2_q16's result.
inline constexpr int exp2_frac_bits = 16;
/// The smallest t exp2_q16 distinguishes from -infinity: 2^-17 rounds to 0 in Q16 anyway.
inline constexpr std::int32_t exp2_min_input = -(32 << exp2_frac_bits);

/// 2^t for t <= 0, both in Q16: a result in [0, 65536].
/// Ranges: u < 2^16 and p < 2^31, so p u < 2^47; the final right shift is in [14, 45].
constexpr std::int32_t exp2_q16(std::int32_t t) noexcept {
  if (t < exp2_min_input) return 0;
  const std::int32_t ip = t >> exp2_frac_bits;  // floor(t), in [-32, 0]
  const std::int64_t u = std::int64_t{t} - std::int64_t{ip} * (std::int64_t{1} << exp2_frac_bits);  // [0, 2^16)
  constexpr std::uint64_t half = std::uint64_t{1} << (exp2_frac_bits - 1);
  // Horner in Q30, unsigned (every term is >= 0): each p <= 2^31 and u < 2^16, one 32 x 32 -> 64
  // multiply a step; the values are the signed 64-bit evaluation's.
  const auto uu = static_cast<std::uint32_t>(u);
  auto p = static_cast<std::uint32_t>(exp2_c4);
  p = static_cast<std::uint32_t>(exp2_c3) +
      static_cast<std::uint32_t>((std::uint64_t{p} * uu + half) >> exp2_frac_bits);
  p = static_cast<std::uint32_t>(exp2_c2) +
      static_cast<std::uint32_t>((std::uint64_t{p} * uu + half) >> exp2_frac_bits);
  p = static_cast<std::uint32_t>(exp2_c1) +
      static_cast<std::uint32_t>((std::uint64_t{p} * uu + half) >> exp2_frac_bits);
  p = static_cast<std::uint32_t>(exp2_c0) +
      static_cast<std::uint32_t>((std::uint64_t{p} * uu + half) >> exp2_frac_bits);  // 2^u in Q30, [2^30, 2^31]
  const int right = 14 - ip;                                                         // Q30 -> Q16, times 2^ip
  // p <= 2^31, so p + 2^(right - 1) < 2^32 for right <= 31; for right >= 32 the quotient of
  // p + 2^(right - 1) <= 2^(right - 1) + 2^31 is 0 (and 1 only for p = 2^31 at right = 32).
  if (right >= 32) return right == 32 && p == (std::uint32_t{1} << 31) ? 1 : 0;
  return static_cast<std::int32_t>((p + (std::uint32_t{1} << (right - 1))) >> right);
}

/// Fraction bits of the probabilities: p = 32768 is 1.
inline constexpr int prob_frac_bits = 15;

/// Softmax of scores[0..count) to Q15 probabilities: softmax(beta * scores) with beta the real
/// value of `beta` (which includes log2(e)). count > 0.
/// Ranges: the scores' differences are >= -2^31 (callers bound |score| < 2^30); each e_j is in
/// [0, 2^16] and the row's maximum gives exactly 2^16, so 2^16 <= sum <= count 2^16 < 2^32 for
/// count < 2^16, and e_j 2^15 + sum / 2 < 2^32: every quotient fits uint32 and is <= 2^15.
template <std::size_t MaxCount>
constexpr void softmax_q15(const std::int32_t* scores, std::size_t count, fixed_multiplier beta,
                           std::uint16_t* probs) noexcept {
  static_assert(MaxCount < (std::size_t{1} << 16), "softmax_q15 requires fewer than 65536 scores a row");
  std::int32_t top = scores[0];
  for (std::size_t j = 1; j < count; ++j)
    if (scores[j] > top) top = scores[j];
  std::uint32_t e[MaxCount]{};
  std::uint32_t sum = 0;
  for (std::size_t j = 0; j < count; ++j) {
    std::int32_t t = scale_saturated(scores[j] - top, beta);  // <= 0
    if (t < exp2_min_input) t = exp2_min_input - 1;
    e[j] = static_cast<std::uint32_t>(exp2_q16(t));
    sum += e[j];
  }
  for (std::size_t j = 0; j < count; ++j)
    probs[j] = static_cast<std::uint16_t>(((e[j] << prob_frac_bits) + sum / 2) / sum);
}

}  // namespace static_attention::detail

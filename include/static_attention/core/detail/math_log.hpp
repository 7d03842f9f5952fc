// SPDX-License-Identifier: BSL-1.0
// log kernels. Design (after the classic fdlibm log, coefficients fitted afresh):
//   x = 2^k m with m in [sqrt(2)/2, sqrt(2)), f = m - 1, s = f / (2 + f);
//   log(1 + f) = 2 atanh(s) = 2s + s R(s^2), R fitted on [0, ((sqrt2-1)/(sqrt2+1))^2];
//   log(x) = k ln2_hi - ((f^2/2 - (s (f^2/2 + R) + k ln2_lo)) - f), which keeps the large
//   terms exact and the rounding error below 1 ulp.
#pragma once

#include <cstdint>
#include <limits>

#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::math {

inline constexpr std::uint64_t sqrt_half_bits = 0x3fe6'a09e'667f'3bcdULL;  // bits of sqrt(1/2)

// x = 2^k m, m in [sqrt(1/2), sqrt(2)), for a positive normal double, branch-free.
struct log_split {
  double kd;
  double m;
};
[[nodiscard]] constexpr log_split split_for_log(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  // Subtracting the bits of sqrt(1/2) moves the exponent boundary to sqrt(2)*2^j, so the
  // exponent field is k and the mantissa bits re-based on sqrt(1/2) give m.
  const std::uint64_t u = bits(x) - sqrt_half_bits;
  const auto k = static_cast<std::int64_t>(u) >> 52;
  const double m = as_double((u & 0x000f'ffff'ffff'ffffULL) + sqrt_half_bits);
  // k to double through the rounding shift: exact, and vectorises without int64->double.
  const double kd = as_double(bits(round_shift) + static_cast<std::uint64_t>(k)) - round_shift;
  return {kd, m};
}

// log(x) for a positive finite double (subnormals included).
[[nodiscard]] constexpr double log_kernel(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  // Subnormals are scaled by 2^54 (exactly). Only constants are selected, so the loop
  // keeps no FP operation under a branch (see kernel_arg).
  const bool sub = x < 0x1p-1022;
  const double scale = select(sub, 0x1p54, 1.0);
  const double k_adjust = select(sub, 54.0, 0.0);
  const log_split sp = split_for_log(x * scale);
  const double kd = sp.kd - k_adjust;
  const double f = sp.m - 1.0;  // exact (Sterbenz)
  const double s = f / (2.0 + f);
  const double z = s * s;
  // R(z) = (2 atanh(s)/s - 2) / z, Chebyshev fit, max error 2^-54.6 (2^-60 on log(1+f)).
  double p = 0x1.0c04595972ab8p-3;
  p = p * z + 0x1.0fbe83c2cbcf3p-3;
  p = p * z + 0x1.3b1c360763b8ap-3;
  p = p * z + 0x1.745cf901605f7p-3;
  p = p * z + 0x1.c71c720160b47p-3;
  p = p * z + 0x1.2492492476c87p-2;
  p = p * z + 0x1.9999999999a38p-2;
  p = p * z + 0x1.5555555555555p-1;
  const double r = z * p;
  const double hfsq = 0.5 * f * f;
  const double tail = s * (hfsq + r) + kd * ln2_lo;
  return kd * ln2_hi - ((hfsq - tail) - f);
}

[[nodiscard, gnu::always_inline]] constexpr double log_impl(double x) noexcept {
  const bool nan = is_nan(x);
  const bool neg = x < 0.0;  // -0.0 is not negative here: log(-0) = -inf
  const bool zero = x == 0.0;
  const bool inf = x == inf_d;
  // Every special input is selected away below; the kernel computes garbage, without
  // undefined behaviour, for them at run time.
  const double y = log_kernel(kernel_arg(x, 0x1p-1074, 0x1.fffffffffffffp1023));
  const double r1 = select(inf, inf_d, y);
  const double r2 = select(zero, -inf_d, r1);
  const double r3 = select(neg, std::numeric_limits<double>::quiet_NaN(), r2);
  return select(nan, quiet(x), r3);
}

// Float log in float arithmetic only (no double: on a single-precision FPU, or none, double is
// done in software). The same reduction, x = 2^k m, f = m - 1 exact, and
//   log(x) = k ln2_hi + f - f^2/2 + k ln2_lo + s w,  s = f / (2 + f), w = f^2/2 + z P(z), z = s^2,
// where k ln2_hi is exact (ln2_hi has 15 significant bits, |k| <= 149). The large terms are
// summed without error: k ln2_hi + f = a1 + t1 (Fast2Sum: |k ln2_hi| >= |f| unless k = 0, when
// a1 = f), f^2/2 = h_hi + h_lo with h_hi exact (f split into 12-bit halves by masking),
// a1 - h_hi = a2 + t2 (Fast2Sum: |a1| >= |h_hi|). s is computed to about 2^-45 (a division
// corrected by its remainder), so that |s w| < 0.017 is good to about 2^-31; the result is
// a2 + (s w + smaller terms): the final addition rounds by up to half an ulp, the rest adds
// under 0.1 ulp. P fitted to 2^-37.8 absolute in log(1 + f) (tools/dev/fit_float_math.py).
// Exhaustively checked over all 2^32 inputs against long double (tools/dev/float_math_exhaustive.cpp,
// docs/accuracy.md): max 0.59 ulp.
inline constexpr float log_ln2_hi_f = 0x1.62e4p-1f;              // 15 significant bits
inline constexpr float log_ln2_lo_f = 0x1.7f7d1ep-20f;           // ln 2 - log_ln2_hi_f, rounded
inline constexpr std::uint32_t sqrt_half_bits_f = 0x3f35'04f3U;  // bits of sqrt(1/2), rounded

// log(x) for a positive finite float (subnormals included).
[[nodiscard]] constexpr float log_kernel_ff(float x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  // Subnormals are scaled by 2^23 (exactly); only constants are selected (see kernel_arg).
  const bool sub = x < 0x1p-126f;
  const float xs = x * select(sub, 0x1p23f, 1.0f);
  // Subtracting the bits of sqrt(1/2) moves the exponent boundary to sqrt(2) 2^j: the exponent
  // field is k, and the mantissa re-based on sqrt(1/2) is m in [sqrt(1/2), sqrt(2)).
  const std::uint32_t u = bits(xs) - sqrt_half_bits_f;
  const std::int32_t k = static_cast<std::int32_t>(u) >> 23;
  const float m = as_float((u & 0x007f'ffffU) + sqrt_half_bits_f);
  const float kd = static_cast<float>(k) - select(sub, 23.0f, 0.0f);
  const float f = m - 1.0f;  // exact (Sterbenz)
  // s = f / (2 + f) = s0 + s1 to about 2^-45: 2 + f = d + d_lo exactly (Fast2Sum), s0 = f / d to
  // about an ulp, and the remainder f - s0 (d + d_lo), with s0 d exact as a sum of products of
  // 12-bit halves (Dekker), gives the correction s1. One division.
  const float d = 2.0f + f;
  const float d_lo = f - (d - 2.0f);
  const float inv_d = 1.0f / d;
  const float s0 = f * inv_d;
  const float s0h = as_float(bits(s0) & 0xffff'f000U);
  const float s0l = s0 - s0h;
  const float dh = as_float(bits(d) & 0xffff'f000U);
  const float dl = d - dh;
  const float prod = s0 * d;
  const float prod_lo = ((s0h * dh - prod) + s0h * dl + s0l * dh) + s0l * dl;  // s0 d = prod + prod_lo
  const float s1 = (((f - prod) - prod_lo) - s0 * d_lo) * inv_d;
  const float z = s0 * s0 + 2.0f * (s0 * s1);
  float p = 0x1.eaca9p-3f;
  p = p * z + 0x1.23f9bep-2f;
  p = p * z + 0x1.999bbcp-2f;
  p = p * z + 0x1.555554p-1f;
  const float r = z * p;
  // k ln2_hi + f = a1 + t1, exactly.
  const float a_k = kd * log_ln2_hi_f;  // exact
  const float a1 = a_k + f;
  const float t1 = f - (a1 - a_k);
  // f^2 / 2 = h_hi + h_lo: f = fh + fl with 12 significant bits in fh, so fh^2 is exact.
  const float fh = as_float(bits(f) & 0xffff'f000U);
  const float fl = f - fh;
  const float h_hi = 0.5f * (fh * fh);
  const float h_lo = 0.5f * (fl * (f + fh));
  // a1 - h_hi = a2 + t2, exactly.
  const float a2 = a1 - h_hi;
  const float t2 = (a1 - a2) - h_hi;
  const float w = h_hi + (r + h_lo);  // f^2/2 + R, rounded once (the inner sum is tiny)
  // The corrections, smallest first, so that only the two largest operations round at the
  // scale of s w (< 0.017): the product s0 w and the sum c.
  const float tiny = ((t1 + t2) - h_lo) + s1 * w;
  const float c = s0 * w + (kd * log_ln2_lo_f + tiny);
  return a2 + c;
}

[[nodiscard, gnu::always_inline]] constexpr float log_impl(float x) noexcept {
  const bool nan = is_nan(x);
  const bool neg = x < 0.0f;
  const bool zero = x == 0.0f;
  const bool inf = x == inf_f;
  const float y = log_kernel_ff(kernel_arg(x, 0x1p-149f, 0x1.fffffep127f));
  const float r1 = select(inf, inf_f, y);
  const float r2 = select(zero, -inf_f, r1);
  const float r3 = select(neg, std::numeric_limits<float>::quiet_NaN(), r2);
  return select(nan, quiet(x), r3);
}

}  // namespace static_attention::detail::math

#include <static_attention/core/detail/math_end.hpp>

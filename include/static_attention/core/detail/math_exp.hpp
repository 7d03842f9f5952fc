// SPDX-License-Identifier: BSL-1.0
// exp kernels. Design (after the classic fdlibm exp, coefficients fitted afresh):
//   x = k ln2 + r, |r| <= ln2/2, with ln2 split hi/lo so that hi = x - k ln2_hi is exact;
//   r coth(r/2) = 2 + r^2 R(r^2), fitted on [0, (ln2/2)^2]; then
//   exp(r) = 1 + r + r c / (2 - c) with c = r - r^2 R(r^2),
//   evaluated as 1 - ((lo - r c/(2 - c)) - hi) so the rounding error stays below 1 ulp;
//   finally exp(x) = 2^k exp(r), scaled in two exact steps so subnormal results round once.
// Coefficients: Chebyshev fits in 50-digit arithmetic (tests/reference/gen_math_reference.py --fit).
#pragma once

#include <cstdint>
#include <type_traits>

#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::math {

// Largest double whose exp is finite, and the point below which exp(x) rounds to +0.
inline constexpr double exp_overflow_d = 0x1.62e42fefa39efp+9;  // 709.78...
inline constexpr double exp_zero_d = -746.0;                    // exp(-746) < 2^-1075

// exp(x) for exp_zero_d <= x <= exp_overflow_d. Never overflows; may underflow, which
// GCC and Clang both accept in constant evaluation.
// Always inlined: Clang otherwise keeps it out of line in tanh and cannot vectorise the loop.
[[nodiscard, gnu::always_inline]] constexpr double exp_kernel(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const double scaled = x * inv_ln2;
  const rounded kr = round_to_int(scaled);
  const double hi = x - kr.kd * ln2_hi;  // exact: kd * ln2_hi is exact and close to x
  const double lo = kr.kd * ln2_lo;
  const double r = hi - lo;
  const double z = r * r;
  // R(z) = (r coth(r/2) - 2) / z, Chebyshev fit, max error 2^-56.6 (error in c below 2^-59).
  double p = -0x1.1fdd7a89f7e28p-30;
  p = p * z + 0x1.66a61a7471563p-25;
  p = p * z + -0x1.bbd777c8b7293p-20;
  p = p * z + 0x1.1566abbfe8859p-14;
  p = p * z + -0x1.6c16c16c16be1p-9;
  p = p * z + 0x1.5555555555555p-3;
  const double c = r - z * p;
  const double rc = r * c;
  const double frac = rc / (2.0 - c);
  const double y = 1.0 - ((lo - frac) - hi);
  // 2^k = 2^k1 * 2^k2 with both factors normal for k in [-1076, 1024]; y * 2^k1 is exact,
  // so only the second product rounds, once, even into the subnormal range.
  const std::int64_t k1 = kr.k >> 1;
  const std::int64_t k2 = kr.k - k1;
  return y * pow2(k1) * pow2(k2);
}

[[nodiscard, gnu::always_inline]] constexpr double exp_impl(double x) noexcept {
  const bool nan = is_nan(x);
  const bool over = x > exp_overflow_d;
  const bool under = x < exp_zero_d;
  const double y = exp_kernel(kernel_arg(x, exp_zero_d, exp_overflow_d));
  // Bit-mask selects (see select), so an array loop has no branches.
  const double r1 = select(over, inf_d, y);
  const double r2 = select(under, 0.0, r1);
  return select(nan, quiet(x), r2);
}

// Double kernel for float tanh (float exp uses exp_kernel_ff below, in float arithmetic).
// Float needs the double intermediate only to
// about 2^-25 (then the final rounding stays within 1 ulp), so the reduction is the cheapest
// exact one and the polynomial the shortest that reaches 2^-28:
//   t = x / ln2 (one rounding, |t| < 151, so an absolute error below 2^-45),
//   k = round(t), u = t - k exactly (|u| <= 1/2), exp(x) = 2^k 2^u,
//   2^u by a degree-6 polynomial (Chebyshev fit, max relative error 2^-28.5),
// then 2^k scales exactly (normal in double) and the conversion to float rounds once, into
// the subnormal range too. Exhaustively checked over all 2^32 inputs: max error 0.5+ ulp
// (tools/dev/exp_float_exhaustive.cpp; docs/accuracy.md).
// Coefficients: mpmath 50 digits, mp.chebyfit(lambda u: 2**u, [-0.50005, 0.50005], 7).
inline constexpr double exp_overflow_f = 0x1.62e42ep+6;  // largest float with finite exp
inline constexpr double exp_zero_f = -104.0;             // exp(-104) < 2^-150

// exp(x) in double with relative error below 2^-28, for -104 <= x <= 89.
[[nodiscard, gnu::always_inline]] constexpr double exp_kernel_f(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const double t = x * inv_ln2;
  const rounded kr = round_to_int(t);
  const double u = t - kr.kd;  // exact
  double p = 0x1.44400fbb6ab91p-13;
  p = p * u + 0x1.5f48d755e733dp-10;
  p = p * u + 0x1.3b2a1b6160509p-7;
  p = p * u + 0x1.c6aecc388e71dp-5;
  p = p * u + 0x1.ebfbe04600c97p-3;
  p = p * u + 0x1.62e430d056f93p-1;
  p = p * u + 0x1.0000000000000p+0;
  return p * pow2(kr.k);  // k in [-150, 128]: 2^k normal in double, the product exact
}

// Float exp in float arithmetic (twice the SIMD width of double). Error budget: the final
// rounding of y = exp(r) in [0.70, 1.42] costs 0.5 ulp, everything before it about 0.2 ulp:
//   k = round(x / ln2) (float round shift; k may be off by one from the nearest, |r| stays
//   below 0.34658), hi = x - k ln2_hi exact (ln2_hi has 15 significant bits, |k| <= 150, and
//   x, k ln2_hi are within a factor 2), lo = k ln2_lo (|lo| < 2^-12, error < 2^-36),
//   r = hi - lo, s = r^2 Q(r) with Q(r) = (exp(r) - 1 - r) / r^2 of degree 5 (relative error
//   2^-26.7 with the float coefficients; |s| < 0.06, so s is good to about 2^-28 absolute),
//   1 + hi = a + t exactly (Fast2Sum, |hi| < 1), y = a + (t + (s - lo)): only the last sum
//   rounds by up to a half ulp; the others are about 2^-29.
// Then 2^k = 2^k1 2^k2 (both normal for k in [-150, 128]), y 2^k1 exact and the second product
// rounds once, also into the subnormal range (y is already rounded there: < 1 ulp in all).
// Exhaustively checked over all 2^32 inputs (tools/dev/exp_float_exhaustive.cpp; docs/accuracy.md).
// Coefficients: mpmath 40 digits, mp.chebyfit(Q, [-0.34658, 0.34658], 6), rounded to float.
inline constexpr float ln2_hi_f = 0x1.62e4p-1f;
inline constexpr float ln2_lo_f = 0x1.7f7d1ep-20f;
inline constexpr float inv_ln2_f = 0x1.715476p+0f;
inline constexpr float round_shift_f = 0x1.8p23f;  // rounds |v| < 2^22 to an integer

// 2^k for -126 <= k <= 127, from bits; unsigned arithmetic, so garbage k (NaN path) is harmless.
[[nodiscard]] constexpr float pow2f(std::uint32_t k) noexcept { return as_float((k + 127U) << 23); }

// exp(x) in float for -104 <= x <= 0x1.62e42ep+6, error below 1 ulp.
[[nodiscard, gnu::always_inline]] constexpr float exp_kernel_ff(float x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const float shifted = x * inv_ln2_f + round_shift_f;
  const float kd = shifted - round_shift_f;
  const std::uint32_t ku = bits(shifted) - bits(round_shift_f);  // k mod 2^32
  const float hi = x - kd * ln2_hi_f;                            // exact
  const float lo = kd * ln2_lo_f;
  const float r = hi - lo;
  float q = 0x1.a124e6p-13f;
  q = q * r + 0x1.6d4318p-10f;
  q = q * r + 0x1.1110e0p-7f;
  q = q * r + 0x1.5554eap-5f;
  q = q * r + 0x1.555556p-3f;
  q = q * r + 0x1.000000p-1f;
  const float s = (r * r) * q;
  const float a = 1.0f + hi;
  const float t = hi - (a - 1.0f);  // exact: 1 + hi = a + t
  const float y = a + (t + (s - lo));
  // k1 = floor(k / 2) by an arithmetic shift of the signed value, k2 = k - k1.
  const auto k1 = static_cast<std::uint32_t>(static_cast<std::int32_t>(ku) >> 1);
  const std::uint32_t k2 = ku - k1;
  return y * pow2f(k1) * pow2f(k2);
}

// Cortex-M without Helium has no vectors: there a loop gains nothing from selects, and two
// compares and a branch cost less than computing every path. exp_kernel_ff of x itself, as
// kernel_arg passes an x in range through: the same bits.
#if defined(__GNUC__) && defined(__arm__) && !defined(__ARM_NEON) && !defined(__ARM_FEATURE_MVE)
#define SA_DETAIL_EXP_BRANCHES 1
#endif

[[nodiscard, gnu::always_inline]] constexpr float exp_impl(float x) noexcept {
#if defined(SA_DETAIL_EXP_BRANCHES)
  if (!std::is_constant_evaluated()) {
    if (x >= static_cast<float>(exp_zero_f) && x <= static_cast<float>(exp_overflow_f)) return exp_kernel_ff(x);
    return is_nan(x) ? quiet(x) : (x > 0.0f ? inf_f : 0.0f);  // NaN fails both compares
  }
#endif
  const bool nan = is_nan(x);
  const bool over = x > static_cast<float>(exp_overflow_f);
  const bool under = x < static_cast<float>(exp_zero_f);
  const float y = exp_kernel_ff(kernel_arg(x, static_cast<float>(exp_zero_f), static_cast<float>(exp_overflow_f)));
  const float r1 = select(over, inf_f, y);
  const float r2 = select(under, 0.0f, r1);
  return select(nan, quiet(x), r2);
}

}  // namespace static_attention::detail::math

#undef SA_DETAIL_EXP_BRANCHES

#include <static_attention/core/detail/math_end.hpp>

// SPDX-License-Identifier: BSL-1.0
// tanh kernels. Double: |x| < 1: odd polynomial x + x z P(z), z = x^2 (Chebyshev fit on [0, 1]);
// |x| >= 1: 1 - 2 / (exp(2|x|) + 1), where q = 2/(e+1) <= 0.24 so exp's error is not
// amplified past the 2 ulp budget; beyond a point where tanh rounds to 1 the result is 1.
// Float: in float arithmetic only, see tanh_impl(float).
// Both branches are computed and one is selected, so an array loop has no branches.
#pragma once

#include <static_attention/core/detail/math_common.hpp>
#include <static_attention/core/detail/math_exp.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::math {

[[nodiscard, gnu::always_inline]] constexpr double tanh_impl(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const bool nan = is_nan(x);
  const double ax = abs(x);
  // For |x| >= 22, 1 - tanh|x| < 2^-63 and tanh rounds to 1, so clamping there is exact.
  const double a = kernel_arg(ax, 0.0, 22.0);
  const double z = a * a;
  // P(z) = (tanh(x)/x - 1) / z, Chebyshev fit on [0, 1], max error 2^-55.6.
  double p = 0x1.b00d46cdf671bp-26;
  p = p * z + -0x1.1aace472a9013p-22;
  p = p * z + 0x1.722e5804ac952p-20;
  p = p * z + -0x1.4eb41442195f2p-18;
  p = p * z + 0x1.ea1683f3af933p-17;
  p = p * z + -0x1.4208576cf2eebp-15;
  p = p * z + 0x1.9497e43fab6f7p-14;
  p = p * z + -0x1.f52109e5c6830p-13;
  p = p * z + 0x1.3551ad1ddc326p-11;
  p = p * z + -0x1.7da2bda3a0536p-10;
  p = p * z + 0x1.d6d3c536445d7p-9;
  p = p * z + -0x1.226e351975919p-7;
  p = p * z + 0x1.664f4880d21f6p-6;
  p = p * z + -0x1.ba1ba1ba1451cp-5;
  p = p * z + 0x1.11111111110b9p-3;
  p = p * z + -0x1.5555555555555p-2;
  const double zp = z * p;
  const double small = a + a * zp;
  const double e = exp_kernel(2.0 * a);  // finite for 2a <= 44
  const double large = 1.0 - 2.0 / (e + 1.0);
  const double t = select(a < 1.0, small, large);
  const double t_inf = select(ax > 22.0, 1.0, t);  // kernel_arg gives NaN for inf at run time
  return select(nan, quiet(x), copysign(t_inf, x));
}

// Float tanh in float arithmetic only (no double: on a single-precision FPU, or none, double is
// done in software). With a = |x| (clamped at 10, beyond which tanh rounds to 1):
//  - a < 0.1875: tanh(a) = a + a z P(z), z = a^2; the correction is under 0.012 a, so its
//    rounding errors stay under 0.02 ulp. P of degree 3, fitted to 2^-35.4 relative.
//  - a >= 0.1875: tanh(a) = 1 - q, q = 2u / (1 + u), u = e^-2a, computed as unevaluated sums so
//    that only the last addition rounds at the scale of the result:
//      u = 2^k (e_hi + e_lo) to about 2^-30: -2a = k ln2 + r, r = hi - lo with hi exact (the
//      reduction of exp_kernel_ff), e^r = 1 + hi + hi^2/2 exactly (hi^2 from 12-bit halves, two
//      Fast2Sums) plus the rest, under 0.01 (r^3 Q3(r) with exp_kernel_ff's polynomial);
//      1 + u = den + den_lo exactly (Fast2Sum); q = q0 + q1 by a division corrected by its
//      remainder (q0 den exact as a sum of products of 12-bit halves, Dekker);
//      1 - q0 = b + bt exactly (Fast2Sum), and the result is b + (bt - q1).
// Both are computed and one is selected, so an array loop has no branches. Exhaustively checked
// over all 2^32 inputs against long double (tools/dev/float_math_exhaustive.cpp, docs/accuracy.md).
// Coefficients: tools/dev/fit_float_math.py (P); exp_kernel_ff's (Q3) in math_exp.hpp.
inline constexpr float tanh_small_limit_f = 0.1875f;

[[nodiscard, gnu::always_inline]] constexpr float tanh_impl(float xf) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const bool nan = is_nan(xf);
  const float ax = as_float(bits(xf) & 0x7fff'ffffU);
  const float a = kernel_arg(ax, 0.0f, 10.0f);
  // a < 0.1875: the odd polynomial.
  const float z = a * a;
  float p = 0x1.69fc94p-6f;
  p = p * z + -0x1.ba810ep-5f;
  p = p * z + 0x1.1111c4p-3f;
  p = p * z + -0x1.555556p-2f;
  const float small = a + a * (z * p);
  // a >= 0.1875: u = e^y, y = -2a = k ln2 + r.
  const float y = -2.0f * a;
  const float shifted = y * inv_ln2_f + round_shift_f;
  const float kd = shifted - round_shift_f;
  const std::uint32_t ku = bits(shifted) - bits(round_shift_f);  // k mod 2^32, k in [-29, 0]
  const float hi = y - kd * ln2_hi_f;                            // exact
  const float lo = kd * ln2_lo_f;
  const float r = hi - lo;
  // e^r = 1 + r + r^2/2 + r^3 Q3(r), r = hi - lo: the large terms 1 + hi + hi^2/2 exactly
  // (hi^2 from 12-bit halves, two Fast2Sums), the rest (< 0.01) rounded.
  float q3 = 0x1.a124e6p-13f;
  q3 = q3 * r + 0x1.6d4318p-10f;
  q3 = q3 * r + 0x1.1110e0p-7f;
  q3 = q3 * r + 0x1.5554eap-5f;
  q3 = q3 * r + 0x1.555556p-3f;
  const float cubic = (r * r) * (r * q3);
  const float hh = as_float(bits(hi) & 0xffff'f000U);
  const float hl = hi - hh;
  const float sq_hi = 0.5f * (hh * hh);  // exact
  const float sq_lo = 0.5f * (hl * (hi + hh));
  const float e_a = 1.0f + hi;
  const float t_a = hi - (e_a - 1.0f);  // exact
  const float e_b = e_a + sq_hi;
  const float t_b = sq_hi - (e_b - e_a);  // exact
  const float rest = ((t_a + t_b) + (sq_lo - hi * lo)) + (cubic - lo);
  const float e_hi = e_b + rest;  // normalised: e_lo is below half an ulp
  const float e_lo = rest - (e_hi - e_b);
  const float scale = pow2f(ku);  // 2^k, normal: the products are exact
  const float u_hi = e_hi * scale;
  const float u_lo = e_lo * scale;
  // q = 2u / (1 + u) = q0 + q1.
  const float den = 1.0f + u_hi;  // u <= 1: Fast2Sum
  const float den_lo = (u_hi - (den - 1.0f)) + u_lo;
  const float num = 2.0f * u_hi;
  const float inv_den = 1.0f / den;
  const float q0 = num * inv_den;
  const float q0h = as_float(bits(q0) & 0xffff'f000U);
  const float q0l = q0 - q0h;
  const float dh = as_float(bits(den) & 0xffff'f000U);
  const float dl = den - dh;
  const float prod = q0 * den;
  const float prod_lo = ((q0h * dh - prod) + q0h * dl + q0l * dh) + q0l * dl;  // q0 den = prod + prod_lo
  const float q1 = ((((num - prod) - prod_lo) + 2.0f * u_lo) - q0 * den_lo) * inv_den;
  // 1 - q0 = b + bt exactly (q0 <= 1), then one rounding.
  const float b = 1.0f - q0;
  const float bt = (1.0f - b) - q0;
  const float large = b + (bt - q1);
  const float t = select(a < tanh_small_limit_f, small, large);
  const float t_inf = select(ax > 10.0f, 1.0f, t);  // kernel_arg gives NaN for inf at run time
  return select(nan, quiet(xf), copysign(t_inf, xf));
}

}  // namespace static_attention::detail::math

#include <static_attention/core/detail/math_end.hpp>

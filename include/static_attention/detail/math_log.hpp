// log kernels. Design (after the classic fdlibm log, coefficients fitted afresh):
//   x = 2^k m with m in [sqrt(2)/2, sqrt(2)), f = m - 1, s = f / (2 + f);
//   log(1 + f) = 2 atanh(s) = 2s + s R(s^2), R fitted on [0, ((sqrt2-1)/(sqrt2+1))^2];
//   log(x) = k ln2_hi - ((f^2/2 - (s (f^2/2 + R) + k ln2_lo)) - f), which keeps the large
//   terms exact and the rounding error below 1 ulp.
#pragma once

#include <cstdint>
#include <limits>

#include "static_attention/detail/math_common.hpp"

SA_DETAIL_MATH_BEGIN

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

// Float: every float (subnormals too) is a normal double, and the same reduction with a
// shorter series (error 2^-37 in R, about 2^-44 relative in log) leaves only the rounding.
[[nodiscard]] constexpr double log_kernel_f(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const log_split sp = split_for_log(x);
  const double f = sp.m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 0x1.8c8cb725e2db5p-3;
  p = p * z + 0x1.c67ad18010d25p-3;
  p = p * z + 0x1.249323f5fe0a4p-2;
  p = p * z + 0x1.999998cae671fp-2;
  p = p * z + 0x1.5555555564eb7p-1;
  const double r = z * p;
  const double hfsq = 0.5 * f * f;
  const double tail = s * (hfsq + r) + sp.kd * ln2_lo;
  return sp.kd * ln2_hi - ((hfsq - tail) - f);
}

[[nodiscard, gnu::always_inline]] constexpr float log_impl(float xf) noexcept {
  const bool nan = is_nan(xf);
  const bool neg = xf < 0.0f;
  const bool zero = xf == 0.0f;
  const bool inf = xf == inf_f;
  // The stand-ins give |log| < 104, and the conversion is defined; NaN stays NaN.
  const double arg = kernel_arg(static_cast<double>(xf), 0x1p-149, 0x1.fffffep127);
  const float y = static_cast<float>(log_kernel_f(arg));
  const float r1 = select(inf, inf_f, y);
  const float r2 = select(zero, -inf_f, r1);
  const float r3 = select(neg, std::numeric_limits<float>::quiet_NaN(), r2);
  return select(nan, quiet(xf), r3);
}

}  // namespace static_attention::detail::math

SA_DETAIL_MATH_END

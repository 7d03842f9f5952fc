// tanh kernels. |x| < 1: odd polynomial x + x z P(z), z = x^2 (Chebyshev fit on [0, 1]);
// |x| >= 1: 1 - 2 / (exp(2|x|) + 1), where q = 2/(e+1) <= 0.24 so exp's error is not
// amplified past the 2 ulp budget; beyond a point where tanh rounds to 1 the result is 1.
// Both branches are computed and one is selected, so an array loop has no branches.
#pragma once

#include "static_attention/detail/math_common.hpp"
#include "static_attention/detail/math_exp.hpp"

SA_DETAIL_MATH_BEGIN

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

[[nodiscard, gnu::always_inline]] constexpr float tanh_impl(float xf) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const bool nan = is_nan(xf);
  const double ax = abs(static_cast<double>(xf));
  // For |x| >= 10, 1 - tanh|x| < 2^-27 and tanh rounds to 1 in float.
  const double a = kernel_arg(ax, 0.0, 10.0);
  const double z = a * a;
  // Same P as the double version, shorter fit (max error 2^-36): float needs about 2^-30.
  double p = 0x1.13f48f26fe3ccp-16;
  p = p * z + -0x1.0199d29bad8b6p-13;
  p = p * z + 0x1.f5172f01daa47p-12;
  p = p * z + -0x1.6b02f4f94d52fp-10;
  p = p * z + 0x1.d303a1b80190bp-9;
  p = p * z + -0x1.222fd53d26c93p-7;
  p = p * z + 0x1.664aa159c8793p-6;
  p = p * z + -0x1.ba1b741544383p-5;
  p = p * z + 0x1.111110b96f75cp-3;
  p = p * z + -0x1.555555551d5b7p-2;
  const double zp = z * p;
  const double small = a + a * zp;
  const double e = exp_kernel_f(2.0 * a);
  const double large = 1.0 - 2.0 / (e + 1.0);
  const float t = static_cast<float>(select(a < 1.0, small, large));
  const float t_inf = select(ax > 10.0, 1.0f, t);  // kernel_arg gives NaN for inf at run time
  return select(nan, quiet(xf), copysign(t_inf, xf));
}

}  // namespace static_attention::detail::math

SA_DETAIL_MATH_END

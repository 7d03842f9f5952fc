// sqrt: correctly rounded in both worlds. At run time the hardware instruction is correctly
// rounded by IEEE 754; in constant evaluation a bit-by-bit integer square root produces the
// same (unique) correctly rounded result.
#pragma once

#include <cstdint>
#include <type_traits>

#include "static_attention/detail/math_common.hpp"

SA_DETAIL_MATH_BEGIN

namespace static_attention::detail::math {

// Correctly rounded sqrt of a finite x > 0, by integer arithmetic only.
[[nodiscard]] constexpr double sqrt_soft_positive(double x) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  // Scale subnormals into the normal range; the exact factor 2^54 becomes 2^27 afterwards.
  const bool sub = x < 0x1p-1022;
  const double xn = sub ? x * 0x1p54 : x;
  const std::uint64_t b = bits(xn);
  const std::int64_t e = static_cast<std::int64_t>(b >> 52) - 1075;  // xn = m * 2^e
  std::uint64_t m = (b & 0x000f'ffff'ffff'ffffULL) | 0x0010'0000'0000'0000ULL;
  std::int64_t e_even = e;
  if ((e & 1) != 0) {  // make the exponent even: m in [2^52, 2^54)
    m <<= 1;
    e_even -= 1;
  }
  // sqrt(m * 2^54) has 54 bits (53 plus a rounding bit). The radicand's 108 bits are m
  // followed by 54 zero bits, consumed two at a time from the top.
  std::uint64_t rem = 0;
  std::uint64_t root = 0;
  for (int i = 0; i < 54; ++i) {
    const int shift = 52 - 2 * i;  // position of the next bit pair within m (negative: zeros)
    const std::uint64_t pair = shift >= 0 ? (m >> shift) & 3U : 0U;
    rem = (rem << 2) | pair;
    const std::uint64_t trial = (root << 2) | 1U;
    root <<= 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1U;
    }
  }
  // root = floor(sqrt(m * 2^54)) in [2^53, 2^54); round half-up on the last bit is exact
  // round-to-nearest because a square root is never exactly halfway between doubles.
  std::uint64_t mant = root >> 1;
  if ((root & 1U) != 0) {
    mant += 1;
  }
  // sqrt(xn) = sqrt(m * 2^e_even) = root * 2^(e_even/2 - 27) = mant * 2^(e_even/2 - 26).
  const std::int64_t scale = e_even / 2 - 26 - (sub ? 27 : 0);
  return static_cast<double>(mant) * pow2(scale);
}

[[nodiscard]] constexpr double sqrt_impl(double x) noexcept {
  if (is_nan(x)) {
    return quiet(x);
  }
  if (x < 0.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (x == 0.0 || x == inf_d) {
    return x;  // keeps the sign of -0
  }
  if (std::is_constant_evaluated()) {
    return sqrt_soft_positive(x);
  }
  return __builtin_sqrt(x);  // x > 0 here, so errno is never touched
}

[[nodiscard]] constexpr float sqrt_impl(float x) noexcept {
  if (is_nan(x)) {
    return quiet(x);
  }
  if (x < 0.0f) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  if (x == 0.0f || x == inf_f) {
    return x;
  }
  if (std::is_constant_evaluated()) {
    // Rounding the double result to float is still correct rounding: 53 >= 2 * 24 + 2.
    return static_cast<float>(sqrt_soft_positive(static_cast<double>(x)));
  }
  return __builtin_sqrtf(x);
}

}  // namespace static_attention::detail::math

SA_DETAIL_MATH_END

// SPDX-License-Identifier: BSL-1.0
// sqrt: correctly rounded in both worlds. At run time the hardware instruction is correctly
// rounded by IEEE 754; in constant evaluation a bit-by-bit integer square root produces the
// same (unique) correctly rounded result.
// On Arm the instruction is written out (vsqrt / fsqrt): __builtin_sqrtf keeps a call to the C
// library's sqrtf for errno, never taken here (x > 0) but linked in all the same, and on a
// single-precision FPU (Cortex-M4F) the float path must not reference the C library at all.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

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

// Correctly rounded sqrt of a finite float x > 0, by 32- and 64-bit integer arithmetic only: the
// constant evaluator's float sqrt, and the run-time one where there is no FPU (Cortex-M3).
[[nodiscard]] constexpr float sqrt_soft_positive(float x) noexcept {
  // x = m 2^e with m < 2^24 (subnormals normalised to m >= 2^23 too).
  const std::uint32_t b = bits(x);
  const std::uint32_t field = b >> 23;
  std::uint32_t m = field == 0 ? (b & 0x007f'ffffU) : ((b & 0x007f'ffffU) | 0x0080'0000U);
  std::int32_t e = field == 0 ? -149 : static_cast<std::int32_t>(field) - 150;
  const int shift = std::countl_zero(m) - 8;  // 0 for normal x
  m <<= shift;
  e -= shift;
  // x = m 2^e with m in [2^24, 2^26) and e even.
  if ((e & 1) != 0) {
    m <<= 1;
    e -= 1;
  } else {
    m <<= 2;
    e -= 2;
  }
  // root = floor(sqrt(m 2^24)) in [2^24, 2^25): 24 bits and a rounding bit. The radicand's
  // 50 bits are consumed two at a time from the top.
  const std::uint64_t radicand = static_cast<std::uint64_t>(m) << 24;
  std::uint64_t rem = 0;
  std::uint64_t root = 0;
  for (int i = 48; i >= 0; i -= 2) {
    rem = (rem << 2) | ((radicand >> i) & 3U);
    const std::uint64_t trial = (root << 2) | 1U;
    root <<= 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1U;
    }
  }
  // Round half up on the last bit: exact round-to-nearest, as a square root is never halfway.
  // sqrt(x) = root 2^(e/2 - 12) = mant 2^(e/2 - 11), mant in [2^23, 2^24]; adding the mantissa
  // to the exponent field carries into it when mant = 2^24.
  const auto mant = static_cast<std::uint32_t>((root >> 1) + (root & 1U));
  const auto exponent_field = static_cast<std::uint32_t>(e / 2 + 139);
  return as_float((exponent_field << 23) + mant - 0x0080'0000U);
}

// The FPU's square root of x > 0 (so errno is never touched), correctly rounded; without an FPU,
// the integer square root above.
[[nodiscard]] inline float hardware_sqrt(float x) noexcept {
#if defined(__arm__) && defined(__ARM_FP) && (__ARM_FP & 4) != 0  // AArch32 with a single-precision FPU
  float r;
  __asm__("vsqrt.f32 %0, %1" : "=t"(r) : "t"(x));
  return r;
#elif defined(__arm__) && !defined(__ARM_FP)  // AArch32 without an FPU: no libm call
  return sqrt_soft_positive(x);
#elif defined(__aarch64__)
  float r;
  __asm__("fsqrt %s0, %s1" : "=w"(r) : "w"(x));
  return r;
#else
  return __builtin_sqrtf(x);
#endif
}
[[nodiscard]] inline double hardware_sqrt(double x) noexcept {
#if defined(__arm__) && defined(__ARM_FP) && (__ARM_FP & 8) != 0  // AArch32 with a double-precision FPU
  double r;
  __asm__("vsqrt.f64 %P0, %P1" : "=w"(r) : "w"(x));
  return r;
#elif defined(__aarch64__)
  double r;
  __asm__("fsqrt %d0, %d1" : "=w"(r) : "w"(x));
  return r;
#else
  return __builtin_sqrt(x);  // in software where there is no FPU for double (Cortex-M4F, M3)
#endif
}

// sqrt for float and double: one body (quiet NaN, NaN below 0, 0 and inf kept with their sign,
// then software in constant evaluation and the FPU at run time).
template <class F>
[[nodiscard]] constexpr F sqrt_of(F x) noexcept {
  if (is_nan(x)) return quiet(x);
  if (x < F{0}) return std::numeric_limits<F>::quiet_NaN();
  if (x == F{0} || x == std::numeric_limits<F>::infinity()) return x;  // keeps the sign of -0
  if (std::is_constant_evaluated()) return sqrt_soft_positive(x);
  return hardware_sqrt(x);
}
[[nodiscard]] constexpr double sqrt_impl(double x) noexcept { return sqrt_of(x); }
[[nodiscard]] constexpr float sqrt_impl(float x) noexcept { return sqrt_of(x); }

}  // namespace static_attention::detail::math

#include <static_attention/core/detail/math_end.hpp>

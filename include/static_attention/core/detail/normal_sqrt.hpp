// SPDX-License-Identifier: BSL-1.0
// Correctly rounded square roots for the normal kernels (torch_normal.hpp), float and double,
// constexpr: in constant evaluation by Newton's iteration and an exact rounding test, at run time
// by the sqrtss/sqrtsd instruction (IEEE 754 square roots are correctly rounded: the same bits).
// The float one was checked on all 2^31 positive floats against the instruction.
#pragma once

#include <cstdint>

#include <static_attention/core/detail/exact_fma.hpp>
#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::torch_normal {

// x > 0 finite and normal; +-0 is returned as it is.

// float: Newton's iteration y <- (y + x / y) / 2 in double from a first guess within 6% (the
// halved exponent) leaves a relative error below 1e-12 after three steps, so q is the float
// nearest sqrt(x) or a neighbour of it. The midpoints between q and its neighbours have 25
// bits: their squares are exact in double and decide the rounding.
[[nodiscard]] constexpr float sqrt_f(float x) noexcept {
  if (!__builtin_is_constant_evaluated()) return __builtin_sqrtf(x);  // the same, correctly rounded, faster
  // xd keeps +-0 out of the arithmetic (sqrt(+-0) = +-0 is returned at the end).
  const double xd = x == 0.0f ? 1.0 : static_cast<double>(x),
               y0 = __builtin_bit_cast(double, (__builtin_bit_cast(std::uint64_t, xd) >> 1) + 0x1ff8'0000'0000'0000ULL),
               y1 = 0.5 * (y0 + xd / y0), y2 = 0.5 * (y1 + xd / y1), y3 = 0.5 * (y2 + xd / y2),
               q = static_cast<float>(y3),
               up = __builtin_bit_cast(float, __builtin_bit_cast(std::uint32_t, static_cast<float>(y3)) + 1),
               down = __builtin_bit_cast(float, __builtin_bit_cast(std::uint32_t, static_cast<float>(y3)) - 1),
               hi = 0.5 * (q + up), lo = 0.5 * (q + down);
  return x == 0.0f ? x : static_cast<float>(xd > hi * hi ? up : xd < lo * lo ? down : q);
}

// double: y, after four Newton steps, is within an ulp of sqrt(x), so r = x - y^2 is exact
// (one fma). With u = ulp(y): sqrt(x) > y + u/2 iff r > y u, and sqrt(x) < y - u/2 iff
// r <= -y u (r and y u are multiples of u^2, so the u^2/4 of (y +- u/2)^2 cannot tip the
// comparison); below a power of two the gap is u/2 and the test is r <= -y u / 2.
[[nodiscard]] constexpr double sqrt_d(double x) noexcept {
  if (!__builtin_is_constant_evaluated()) return __builtin_sqrt(x);  // the same, correctly rounded, faster
  // xs keeps +-0 out of the arithmetic (sqrt(+-0) = +-0 is returned at the end).
  const double xs = x == 0.0 ? 1.0 : x,
               y0 = __builtin_bit_cast(double, (__builtin_bit_cast(std::uint64_t, xs) >> 1) + 0x1ff8'0000'0000'0000ULL),
               y1 = 0.5 * (y0 + xs / y0), y2 = 0.5 * (y1 + xs / y1), y3 = 0.5 * (y2 + xs / y2),
               y = 0.5 * (y3 + xs / y3), r = fused(-y, y, xs).value,
               yu = y * __builtin_bit_cast(
                            double, (__builtin_bit_cast(std::uint64_t, y) & 0x7ff0'0000'0000'0000ULL) - (52ULL << 52)),
               yu_below = (__builtin_bit_cast(std::uint64_t, y) & 0x000f'ffff'ffff'ffffULL) == 0 ? 0.5 * yu : yu;
  return x == 0.0         ? x
         : r > yu         ? __builtin_bit_cast(double, __builtin_bit_cast(std::uint64_t, y) + 1)
         : r <= -yu_below ? __builtin_bit_cast(double, __builtin_bit_cast(std::uint64_t, y) - 1)
                          : y;
}
}  // namespace static_attention::detail::torch_normal

#include <static_attention/core/detail/math_end.hpp>

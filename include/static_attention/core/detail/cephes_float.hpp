// SPDX-License-Identifier: BSL-1.0
// The float normal kernel's log and sincos: avx_mathfun.h's Cephes log256_ps and sincos256_ps
// as PyTorch 1.13's AVX2 build of normal_fill_16_AVX2 runs them, one lane at a time, with the
// FMAs GCC formed when it compiled them (-mfma -ffp-contract=fast), read from libtorch_cpu.so's
// machine code. Checked at run time through both code paths against torch on every float
// uniform (each of the 2^24 values as u1 and as u2, three mean/std pairs).
#pragma once

#include <cstdint>

#include <static_attention/core/detail/exact_fma.hpp>
#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::torch_normal {

// float: PyTorch's AVX2 kernel, one lane at a time. Each fused() is an FMA that GCC formed in
// libtorch_cpu.so; every other product and sum is rounded on its own. Products that are exact
// (by a power of two, or of small integers by short constants) are written unfused: fusing
// them would not change a bit.

// Cephes' constants as the kernel loads them (avx_mathfun.h's literals rounded to float).
inline constexpr float sqrt_half_f = 0x1.6a09e6p-1f;
inline constexpr float log_p[9] = {0x1.204376p-4f,  -0x1.d7a370p-4f, 0x1.de4a34p-4f,  -0x1.fcba9ep-4f, 0x1.23d37ep-3f,
                                   -0x1.555ca0p-3f, 0x1.999d58p-3f,  -0x1.fffff8p-3f, 0x1.555554p-2f};
inline constexpr float log_q1 = -0x1.bd0106p-13f;  // ln 2 = q2 - q1 (Cody and Waite)
inline constexpr float log_q2 = 0x1.63p-1f;
inline constexpr float four_over_pi_f = 0x1.45f306p+0f;
inline constexpr float minus_dp1 = -0x1.92p-1f;  // -pi/4 in three parts
inline constexpr float minus_dp2 = -0x1.fb4p-13f;
inline constexpr float minus_dp3 = -0x1.4442d2p-25f;
inline constexpr float sin_p0 = -0x1.9943f2p-13f, sin_p1 = 0x1.11073cp-7f, sin_p2 = -0x1.555546p-3f;
inline constexpr float cos_p0 = 0x1.99eb9cp-16f, cos_p1 = -0x1.6c0c34p-10f, cos_p2 = 0x1.55554ap-5f;
inline constexpr float two_pi_f = 0x1.921fb6p+2f;  // _mm256_set1_ps(2.0f * c10::pi<double>)

// log256_ps, x positive and normal: x = m 2^e with m in [sqrt(1/2), sqrt(2)) and t = m - 1,
// log(x) = t + t^3 P(t) - t^2/2 + e ln 2 (P by Horner, one FMA per step).
[[nodiscard]] constexpr float cephes_log(float x) noexcept {
  // m in [0.5, 1) from x's mantissa; below sqrt(1/2) it is doubled (t = 2m - 1) and e lowered.
  const float m = __builtin_bit_cast(float, (__builtin_bit_cast(std::uint32_t, x) & ~0x7f80'0000U) | 0x3f00'0000U),
              e = (static_cast<float>(static_cast<std::int32_t>(__builtin_bit_cast(std::uint32_t, x) >> 23) - 127) +
                   1.0f) -
                  (m < sqrt_half_f ? 1.0f : 0.0f),
              t = (m - 1.0f) + (m < sqrt_half_f ? m : 0.0f), z = t * t, y1 = fused(log_p[0], t, log_p[1]).value,
              y2 = fused(y1, t, log_p[2]).value, y3 = fused(y2, t, log_p[3]).value, y4 = fused(y3, t, log_p[4]).value,
              y5 = fused(y4, t, log_p[5]).value, y6 = fused(y5, t, log_p[6]).value, y7 = fused(y6, t, log_p[7]).value,
              y8 = fused(y7, t, log_p[8]).value;
  return (t + (fused(y8 * t, z, e * log_q1).value - z * 0.5f)) + e * log_q2;
}

struct sin_cos_f {
  float sin;
  float cos;
};

// sincos256_ps, x finite with |x| < 2^31 pi/4: x = j pi/4 + r with j the even integer at or
// above |x| 4/pi (truncated, plus one, last bit cleared) and |r| <= pi/4, both polynomials in
// r^2, then the selection and the sign flips by octant. Signs of zero follow the vector code
// (and, andnot, then an add of +0).
[[nodiscard]] constexpr sin_cos_f cephes_sincos(float x) noexcept {
  const std::uint32_t sign = __builtin_bit_cast(std::uint32_t, x) & 0x8000'0000U;
  const float ax = __builtin_bit_cast(float, __builtin_bit_cast(std::uint32_t, x) ^ sign);
  const std::int32_t j = (static_cast<std::int32_t>(ax * four_over_pi_f) + 1) & ~1;
  const float y = static_cast<float>(j), r1 = fused(y, minus_dp1, ax).value, r2 = fused(y, minus_dp2, r1).value,
              r = fused(y, minus_dp3, r2).value, z = r * r, c1 = fused(z, cos_p0, cos_p1).value,
              c2 = fused(z, c1, cos_p2).value, c = fused(c2 * z, z, -(z * 0.5f)).value + 1.0f,
              s1 = fused(sin_p0, z, sin_p1).value, s2 = fused(z, s1, sin_p2).value, s = fused(z * s2, r, r).value,
              sin_poly = (j & 2) == 0 ? s + 0.0f : 0.0f + c, cos_poly = (j & 2) == 0 ? 0.0f + c : s + 0.0f;
  return {__builtin_bit_cast(
              float, __builtin_bit_cast(std::uint32_t, sin_poly) ^ sign ^ (static_cast<std::uint32_t>(j & 4) << 29)),
          __builtin_bit_cast(
              float, __builtin_bit_cast(std::uint32_t, cos_poly) ^ (static_cast<std::uint32_t>(~(j - 2) & 4) << 29))};
}

}  // namespace static_attention::detail::torch_normal

#include <static_attention/core/detail/math_end.hpp>

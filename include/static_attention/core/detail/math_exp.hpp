// SPDX-License-Identifier: BSL-1.0
// exp kernels. Design (after the classic fdlibm exp, coefficients fitted afresh):
//   x = k ln2 + r, |r| <= ln2/2, with ln2 split hi/lo so that hi = x - k ln2_hi is exact;
//   r coth(r/2) = 2 + r^2 R(r^2), fitted on [0, (ln2/2)^2]; then
//   exp(r) = 1 + r + r c / (2 - c) with c = r - r^2 R(r^2),
//   evaluated as 1 - ((lo - r c/(2 - c)) - hi) so the rounding error stays below 1 ulp;
//   finally exp(x) = 2^k exp(r), scaled in two exact steps so subnormal results round once.
// Coefficients: Chebyshev fits in 50-digit arithmetic (tests/reference/gen_math_reference.py --fit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <static_attention/core/detail/fp_contract.hpp>
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
// A single-precision FPU that fuses (VFMA, VFMS): FPv4-SP and FPv5 (M4F, M7, M33), with GCC.
#if !defined(__clang__) && defined(__ARM_FEATURE_FMA) && defined(__ARM_FP) && (__ARM_FP & 4)
#define SA_DETAIL_EXP_FUSED_HI 1
#endif
#endif

#if defined(SA_DETAIL_EXP_BRANCHES)
// x * y, rounded on its own wherever this is inlined: GCC contracts a product and an add by the
// contraction mode of the function they end up in, and the always-inlined kernel below may end
// up outside this region (the softmax's rows). No instruction.
[[nodiscard, gnu::always_inline]] inline float product_f(float x, float y) noexcept {
  float p = x * y;
  round_here(p);
  return p;
}

// exp_kernel_ff's constants, as one value for the kernel's two callers below (the softmax's loop
// loads them once, before its first value).
struct exp_constants_f {
  float inv_ln2 = inv_ln2_f, shift = round_shift_f, ln2_hi = ln2_hi_f, ln2_lo = ln2_lo_f;
  float q5 = 0x1.a124e6p-13f, q4 = 0x1.6d4318p-10f, q3 = 0x1.1110e0p-7f, q2 = 0x1.5554eap-5f, q1 = 0x1.555556p-3f,
        q0 = 0x1.000000p-1f, one = 1.0f;
};

// exp_kernel_ff(x) at run time on those cores, up to y = exp(r) and k, the same steps: each
// product rounded on its own (product_f), and hi = x - kd ln2_hi, which is exact (above), one
// VFMS where the FPU fuses (the exact value rounded once is itself). Bits by __builtin_bit_cast
// (a call to bits() would stay a call where this is inlined outside the region).
struct exp_parts_f {
  float y;                     // exp(r), in [0.70, 1.42]
  std::uint32_t shifted_bits;  // bits(shifted): k + bits(round_shift_f)
};
[[nodiscard, gnu::always_inline]] inline exp_parts_f exp_kernel_ff_parts(float x, const exp_constants_f& c) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const float shifted = product_f(x, c.inv_ln2) + c.shift;
  const auto shifted_bits = __builtin_bit_cast(std::uint32_t, shifted);
#if defined(__ARM_FP)
  const float kd = shifted - c.shift;
#if defined(SA_DETAIL_EXP_FUSED_HI)
  const float hi = __builtin_fmaf(-kd, c.ln2_hi, x);  // exact
#else
  const float hi = x - product_f(kd, c.ln2_hi);  // exact
#endif
  const float lo = product_f(kd, c.ln2_lo);
  const float r = hi - lo;
#else
  // Software floating point: for k = 0 (|x| < ln2 / 2 or so) the reduction's four operations,
  // calls into libgcc, give kd = +0, hi = x - (+0) = x, lo = +0 and r = x - (+0) = x (for x = -0
  // too): taken as such.
  float hi = x, lo = 0.0f, r = x;
  if (shifted_bits != __builtin_bit_cast(std::uint32_t, c.shift)) {
    const float kd = shifted - c.shift;
    hi = x - product_f(kd, c.ln2_hi);  // exact
    lo = product_f(kd, c.ln2_lo);
    r = hi - lo;
  }
#endif
  float q = product_f(c.q5, r) + c.q4;
  q = product_f(q, r) + c.q3;
  q = product_f(q, r) + c.q2;
  q = product_f(q, r) + c.q1;
  q = product_f(q, r) + c.q0;
  const float s = product_f(r * r, q);
  const float a = c.one + hi;
  const float t = hi - (a - c.one);  // exact: 1 + hi = a + t
  return {a + (t + (s - lo)), shifted_bits};
}

// The scaling, y 2^k1 2^k2. When y 2^k is normal (the exponent field of y plus k in [1, 254]),
// both products are exact, and y 2^k is y's bits with k added to the exponent field: one integer
// addition instead of two multiplications (two calls into libgcc in software floating point).
// ku << 23 is bits(shifted) << 23, as bits(round_shift_f) ends in nine zero bits.
[[nodiscard, gnu::always_inline]] inline std::uint32_t exp_scaled_bits(exp_parts_f p) noexcept {
  return __builtin_bit_cast(std::uint32_t, p.y) + (p.shifted_bits << 23);
}

// Otherwise (a subnormal, +0 or infinite result: x below about -86.6 or above 88.4) the two
// products; out of line, as rare.
[[nodiscard, gnu::noinline, gnu::cold]] inline float exp_scaled_apart(exp_parts_f p) noexcept {
  const std::uint32_t ku = p.shifted_bits - __builtin_bit_cast(std::uint32_t, round_shift_f);  // k mod 2^32
  const auto k1 = static_cast<std::uint32_t>(static_cast<std::int32_t>(ku) >> 1);
  const std::uint32_t k2 = ku - k1;
  return p.y * __builtin_bit_cast(float, (k1 + 127U) << 23) * __builtin_bit_cast(float, (k2 + 127U) << 23);
}

// exp_kernel_ff(x), for x in its range.
[[nodiscard, gnu::always_inline]] inline float exp_kernel_ff_branches(float x) noexcept {
  const exp_parts_f p = exp_kernel_ff_parts(x, exp_constants_f{});
  const std::uint32_t scaled = exp_scaled_bits(p);
  return scaled - 0x0080'0000U < 0x7f00'0000U ? __builtin_bit_cast(float, scaled) : exp_scaled_apart(p);
}
#endif

[[nodiscard, gnu::always_inline]] constexpr float exp_impl(float x) noexcept {
#if defined(SA_DETAIL_EXP_BRANCHES)
  if (!std::is_constant_evaluated()) {
    if (x >= static_cast<float>(exp_zero_f) && x <= static_cast<float>(exp_overflow_f))
      return exp_kernel_ff_branches(x);
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

#if defined(SA_DETAIL_EXP_BRANCHES)
// exp(x), out of line: the softmax's rare arguments at or below -86.
[[nodiscard, gnu::noinline, gnu::cold]] inline float exp_far_below(float x) noexcept { return exp_impl(x); }
#endif

/// The softmax's exponentials at run time: out[j] = exp(x[j] - top) for j < n, returned with
/// their sum in order of j, where top is finite and at least every x[j] that is not NaN (so each
/// argument is in [-inf, 0], or NaN: then the sum is NaN); out may be x. exp_impl's bits. Not
/// inlined into callers of another contraction mode (this region's optimize pragma), so its
/// products stay unfused.
template <class T>
inline T exp_below_max(const T* x, T top, T* out, std::size_t n) noexcept {
  T total{};
  for (std::size_t j = 0; j < n; ++j) {
    const T e = exp_impl(x[j] - top);
    out[j] = e;
    total += e;
  }
  return total;
}

#if defined(SA_DETAIL_EXP_BRANCHES)
/// The Cortex-M without vectors: inlined (its products are rounded on their own wherever it
/// lands), one range check, exp(0) = 1 (the maximum's own term) without the kernel, and the
/// scaling by an integer addition.
template <>
[[gnu::always_inline]] inline float exp_below_max<float>(const float* x, float top, float* out,
                                                         std::size_t n) noexcept {
  constexpr exp_constants_f c;
  // An argument v in (-86, 0), as unsigned: above the sign bit's and below -86's bits. There
  // k >= -125, so y 2^k is normal and exp_scaled_bits gives it. The first other argument (at or
  // below -86, -inf, NaN) leaves the loop: it and the rest through exp_far_below (no call in
  // this loop, whose values would otherwise be saved around it).
  constexpr std::uint32_t least = 0x8000'0001U;
  constexpr std::uint32_t span = __builtin_bit_cast(std::uint32_t, -86.0f) - least;
  float total = 0.0f;
  const float* const end = x + n;
  for (; x != end; ++x, ++out) {
    const float v = *x - top;
    const auto u = __builtin_bit_cast(std::uint32_t, v);
    float e = c.one;  // v = +-0: exp(0) = 1 exactly, as the kernel gives (the maximum's own term)
    if ((u << 1) != 0) {
      if (u - least >= span) break;
      e = __builtin_bit_cast(float, exp_scaled_bits(exp_kernel_ff_parts(v, c)));
    }
    *out = e;
    total += e;
  }
  for (; x != end; ++x, ++out) {
    const float e = exp_far_below(*x - top);
    *out = e;
    total += e;
  }
  return total;
}
#endif

}  // namespace static_attention::detail::math

#undef SA_DETAIL_EXP_BRANCHES
#undef SA_DETAIL_EXP_FUSED_HI

#include <static_attention/core/detail/math_end.hpp>

// SPDX-License-Identifier: BSL-1.0
// The fused multiply-add of constant evaluation: fma(a, b, c) rounded once, for float and for
// double, with the bits an FMA instruction gives. Two users:
//   - the normal-distribution kernels (torch_normal.hpp, reduce_welford.hpp), wherever the code
//     they reproduce was compiled to an FMA instruction: fused<F>(a, b, c).value;
//   - the matrix products of builds whose run-time kernels fuse (fp_contract.hpp,
//     kernels_fuse): fma_exact(a, b, c) for every input, and the same arithmetic written into
//     the constant-evaluation dot products of matmul_kernel.hpp.
//
// Constant-evaluation cost: Clang charges one step per statement and a constructor with an
// empty body one, so fused is a class whose constructor computes the result in member
// initialisers; bit casts are __builtin_bit_cast (std::bit_cast is a call). GCC counts
// operations and charges member reads more than local ones, so the classes keep few members.
//
// FMA contraction is off throughout (GCC: optimize pragma; Clang: fp contract pragma for the
// whole file, which covers member initialisers too), so exactly the FMAs written are fused.
#pragma once

#include <cstdint>

#include <static_attention/core/detail/math_common.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail {

// a + b rounded to odd: s = RN(a + b) if that is exact or has an odd last bit, otherwise the
// neighbour of s towards the exact sum (whose last bit is odd). Rounding to odd and then to
// nearest in a narrower format, or after adding a larger term, is one correct rounding.
[[nodiscard]] constexpr double add_round_to_odd(double a, double b) noexcept {
  const double s = a + b, bv = s - a, e = (a - (s - bv)) + (b - bv);
  const std::uint64_t m = __builtin_bit_cast(std::uint64_t, s);
  return e == 0.0 || (m & 1U) != 0 ? s : __builtin_bit_cast(double, (s > 0.0) == (e > 0.0) ? m + 1 : m - 1);
}

// fma(a, b, c), rounded once: fused(a, b, c).value, for float and for double.
template <class F>
struct fused;

// At run time, on targets with a float FMA instruction (x86 with FMA, AArch64, Arm with a
// single-precision VFMA), the instruction itself: the same bits (the emulation is correct for
// every input), one instruction instead of the emulation's branches (GPT-2 124M's normal_ and
// uniform_ run 4.3 and 2.8 times faster). In constant evaluation, and elsewhere, the emulation.
#if defined(__FMA__) || defined(__aarch64__) || (defined(__ARM_FEATURE_FMA) && defined(__ARM_FP) && (__ARM_FP & 4))
#define SA_DETAIL_FMAF_AT_RUN_TIME(a, b, c) !__builtin_is_constant_evaluated() ? __builtin_fmaf(a, b, c):
#else
#define SA_DETAIL_FMAF_AT_RUN_TIME(a, b, c)
#endif
/// float: a * b is exact in double (24 + 24 bits), so sum = RN(a * b + c) is one rounding,
/// and rounding it to float is the correct result unless it lies exactly halfway between two
/// floats (the first rounding may have made that tie) or below float's normal range; those rare
/// cases round to odd first. Correct for every input (infinities too: the product cannot
/// overflow in double).
template <>
struct fused<float> {
  double sum;
  float value;
  constexpr fused(float a, float b, float c) noexcept
      : sum(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c)),
        value(SA_DETAIL_FMAF_AT_RUN_TIME(a, b, c)(__builtin_bit_cast(std::uint64_t, sum) & 0x1fff'ffffU) !=
                          0x1000'0000U &&
                      (sum > 0x1p-126 || sum < -0x1p-126)
                  ? static_cast<float>(sum)
                  : static_cast<float>(
                        add_round_to_odd(static_cast<double>(a) * static_cast<double>(b), static_cast<double>(c)))) {}
};
#undef SA_DETAIL_FMAF_AT_RUN_TIME

/// double (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
/// using rounding to odd", IEEE TC 2008, algorithm 5): a * b = p + pe exactly (Dekker's product
/// on Veltkamp's halves ah + (a - ah), bh + (b - bh)), c + p = th + tl exactly (Knuth's TwoSum),
/// then RN(th + RO(tl + pe)), the rounding to odd from a third TwoSum, tl + pe = s + se.
/// Needs |a|, |b| < 2^995 and no underflow in the error terms or the result (fma_safe_double
/// says when); fma_exact takes every other input.
/// Only values read twice are members (reads of members cost GCC's evaluator more operations
/// than recomputing a difference); the rest is recomputed.
template <>
struct fused<double> {
  static constexpr double splitter = 0x1p27 + 1.0;
  double ah, bh, p, pe, th, tl, s, se;
  double value;
  constexpr fused(double a, double b, double c) noexcept
      : ah(splitter * a - (splitter * a - a)),
        bh(splitter * b - (splitter * b - b)),
        p(a * b),
        pe(((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)),
        th(c + p),
        tl((c - (th - (th - c))) + (p - (th - c))),
        s(tl + pe),
        se((tl - (s - (s - tl))) + (pe - (s - tl))),
        value(th +
              (se == 0.0 || (__builtin_bit_cast(std::uint64_t, s) & 1U) != 0
                   ? s
                   : __builtin_bit_cast(double, (s > 0.0) == (se > 0.0) ? __builtin_bit_cast(std::uint64_t, s) + 1
                                                                        : __builtin_bit_cast(std::uint64_t, s) - 1))) {}
};

template <class F>
fused(F, F, F) -> fused<F>;

namespace fma_detail {

// |x| with no call (the constant-evaluation folds use the same expression).
template <class F>
[[nodiscard]] constexpr F magnitude(F x) noexcept {
  return x < 0 ? -x : x;
}

// A 128-bit unsigned integer as two halves: no __int128 (32-bit Arm has none).
struct u128 {
  std::uint64_t hi, lo;
};

[[nodiscard]] constexpr u128 multiply(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t a0 = a & 0xffff'ffffU, a1 = a >> 32, b0 = b & 0xffff'ffffU, b1 = b >> 32;
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + (p01 & 0xffff'ffffU) + (p10 & 0xffff'ffffU);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xffff'ffffU)};
}

// Index of the highest set bit (x != 0).
[[nodiscard]] constexpr int top_bit(u128 x) noexcept {
  std::uint64_t w = x.hi != 0 ? x.hi : x.lo;
  int t = x.hi != 0 ? 64 : 0;
  for (int step = 32; step > 0; step /= 2)
    if ((w >> step) != 0) {
      w >>= step;
      t += step;
    }
  return t;
}

[[nodiscard]] constexpr u128 shift_left(u128 x, int n) noexcept {  // 0 <= n < 128
  if (n == 0) return x;
  if (n >= 64) return {x.lo << (n - 64), 0};
  return {(x.hi << n) | (x.lo >> (64 - n)), x.lo << n};
}

// x >> n, and whether any of the bits shifted out was set (n >= 0).
[[nodiscard]] constexpr u128 shift_right(u128 x, int n, bool& lost) noexcept {
  if (n == 0) {
    lost = false;
    return x;
  }
  if (n >= 128) {
    lost = x.hi != 0 || x.lo != 0;
    return {0, 0};
  }
  if (n >= 64) {
    const int m = n - 64;
    lost = x.lo != 0 || (m != 0 && (x.hi << (64 - m)) != 0);
    return {0, m == 0 ? x.hi : x.hi >> m};
  }
  lost = (x.lo << (64 - n)) != 0;
  return {x.hi >> n, (x.lo >> n) | (x.hi << (64 - n))};
}

[[nodiscard]] constexpr bool less(u128 x, u128 y) noexcept { return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo); }

[[nodiscard]] constexpr u128 add(u128 x, u128 y) noexcept {
  const std::uint64_t lo = x.lo + y.lo;
  return {x.hi + y.hi + (lo < x.lo ? 1U : 0U), lo};
}

[[nodiscard]] constexpr u128 subtract(u128 x, u128 y) noexcept {  // x >= y
  return {x.hi - y.hi - (x.lo < y.lo ? 1U : 0U), x.lo - y.lo};
}

// A finite nonzero double as m 2^e, m an integer below 2^53.
struct unpacked {
  std::uint64_t m;
  int e;
  bool negative;
};

[[nodiscard]] constexpr unpacked unpack(double x) noexcept {
  const std::uint64_t u = __builtin_bit_cast(std::uint64_t, x);
  const int field = static_cast<int>((u >> 52) & 0x7ffU);
  const std::uint64_t frac = u & 0x000f'ffff'ffff'ffffU;
  return {field == 0 ? frac : frac | 0x0010'0000'0000'0000U, (field == 0 ? 1 : field) - 1075, (u >> 63) != 0};
}

// (-1)^negative sum 2^e (sum != 0) rounded to the nearest double, ties to even; subnormal and
// overflowing results included.
[[nodiscard]] constexpr double round_to_double(u128 sum, int e, bool negative) noexcept {
  const int t = top_bit(sum);
  const int top = t + e;  // sum 2^e lies in [2^top, 2^(top + 1))
  const std::uint64_t sign = negative ? 0x8000'0000'0000'0000U : 0U;
  if (top > 1023) return __builtin_bit_cast(double, sign | 0x7ff0'0000'0000'0000U);
  const bool normal = top >= -1022;
  const int drop = normal ? t - 52 : -1074 - e;  // bits below the result's last place
  std::uint64_t m = 0;
  if (drop <= 0) {
    m = shift_left(sum, -drop).lo;
  } else {
    bool below_half = false;
    bool lost = false;
    const u128 kept = shift_right(sum, drop, lost);
    const u128 half_and_below = shift_right(sum, drop - 1, below_half);
    const bool half = (half_and_below.lo & 1U) != 0;
    m = kept.lo;
    if (half && (below_half || (m & 1U) != 0)) ++m;
  }
  // Normal: m in [2^52, 2^53]; a carry to 2^53 moves into the exponent (and to infinity).
  // Subnormal: the exponent field is 0, or 1 if rounding reached the smallest normal.
  const std::uint64_t body = normal ? (static_cast<std::uint64_t>(top + 1022) << 52) + m : m;
  return __builtin_bit_cast(double, sign | body);
}

}  // namespace fma_detail

/// fma(a, b, c) rounded once, for every input: exact integer arithmetic on the significands
/// (double), fused<float> (float). The slow path of the constant-evaluation kernels, for the
/// inputs their fast arithmetic does not cover (infinities, zeros, huge or tiny magnitudes).
[[nodiscard]] constexpr double fma_exact(double a, double b, double c) noexcept {
  using namespace fma_detail;
  constexpr double max = 0x1.fffffffffffffp1023;
  if (!(magnitude(a) <= max) || !(magnitude(b) <= max)) return a * b + c;  // the product is exact
  if (!(magnitude(c) <= max)) return c;                                    // a finite product
  if (a == 0 || b == 0) return a * b + c;                                  // an exact zero product
  const unpacked ua = unpack(a), ub = unpack(b);
  const bool product_negative = ua.negative != ub.negative;
  u128 product = multiply(ua.m, ub.m);
  int product_e = ua.e + ub.e;
  if (c == 0) return round_to_double(product, product_e, product_negative);
  const unpacked uc = unpack(c);
  u128 addend{0, uc.m};
  int addend_e = uc.e;
  // Both with their top bit at 125: the product's lowest bit then sits at 20 or above, the
  // addend's at 73, and a carry fits in bit 126.
  const int product_shift = 125 - top_bit(product), addend_shift = 125 - top_bit(addend);
  product = shift_left(product, product_shift);
  product_e -= product_shift;
  addend = shift_left(addend, addend_shift);
  addend_e -= addend_shift;
  const bool product_larger = product_e > addend_e || (product_e == addend_e && !less(product, addend));
  const u128 big = product_larger ? product : addend;
  const int big_e = product_larger ? product_e : addend_e;
  const bool big_negative = product_larger ? product_negative : uc.negative;
  bool lost = false;
  u128 small = shift_right(product_larger ? addend : product, big_e - (product_larger ? addend_e : product_e), lost);
  // Bits shifted out (only when the operands are more than 20 places apart, so the result
  // keeps at least 124 bits) leave a sticky bit far below the rounding position.
  if (lost) small.lo |= 1U;
  if (big_negative == (product_larger ? uc.negative : product_negative))
    return round_to_double(add(big, small), big_e, big_negative);
  const u128 difference = subtract(big, small);
  if (difference.hi == 0 && difference.lo == 0) return 0.0;  // exact cancellation: +0
  return round_to_double(difference, big_e, big_negative);
}

[[nodiscard]] constexpr float fma_exact(float a, float b, float c) noexcept { return fused<float>(a, b, c).value; }

/// The inputs for which fused<double> is exact and GCC folds __builtin_fma: |a|, |b| <= 2^900,
/// 2^-900 <= |a b| <= 2^1000, |c| <= 2^1000 (p = RN(a b)). The exact result is then 0 or at
/// least 2^-1006 (every term is a multiple of 2^-1006 or far below a b), never subnormal, and
/// finite; every error term of the emulation is representable.
[[nodiscard]] constexpr bool fma_safe_double(double a, double b, double p, double c) noexcept {
  using fma_detail::magnitude;
  return magnitude(a) <= 0x1p900 && magnitude(b) <= 0x1p900 && magnitude(p) >= 0x1p-900 && magnitude(p) <= 0x1p1000 &&
         magnitude(c) <= 0x1p1000;
}

/// Float's counterpart for GCC's __builtin_fmaf: 2^-77 <= |a b| <= 2^100, |c| <= 2^100 (the
/// exact result is 0 or a normal float).
[[nodiscard]] constexpr bool fma_safe_float(float p, float c) noexcept {
  using fma_detail::magnitude;
  return magnitude(p) >= 0x1p-77F && magnitude(p) <= 0x1p100F && magnitude(c) <= 0x1p100F;
}

/// fma(a, b, c) in constant evaluation, for every input, by the cheapest exact route: GCC's
/// own folding of __builtin_fma where it folds (finite operands, a normal or zero result),
/// Clang's fused<F> emulation, fma_exact elsewhere.
template <class F>
[[nodiscard]] constexpr F fma_constexpr(F a, F b, F c) noexcept {
  const F p = a * b;
  if (a == 0 || b == 0) return p + c;  // the product is an exact zero (or a NaN)
  if constexpr (sizeof(F) == sizeof(float)) {
#if defined(__GNUC__) && !defined(__clang__)
    if (fma_safe_float(p, c)) return __builtin_fmaf(a, b, c);
#endif
    return fused<float>(a, b, c).value;
  } else {
    if (fma_safe_double(a, b, p, c)) {
#if defined(__GNUC__) && !defined(__clang__)
      return __builtin_fma(a, b, c);
#else
      return fused<double>(a, b, c).value;
#endif
    }
    return fma_exact(a, b, c);
  }
}

namespace torch_normal {
// The normal kernels' names for the one implementation.
using ::static_attention::detail::add_round_to_odd;
using ::static_attention::detail::fused;
}  // namespace torch_normal

}  // namespace static_attention::detail

#include <static_attention/core/detail/math_end.hpp>

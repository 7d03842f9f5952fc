// SPDX-License-Identifier: BSL-1.0
// Exact fused multiply-add without FMA hardware, in constexpr code: fused(a, b, c).value is
// fma(a, b, c) rounded once, for float and for double, with the same bits in constant evaluation
// and at run time. The normal kernels (torch_normal.hpp) use it wherever the code they reproduce
// was compiled to an FMA instruction.
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

namespace static_attention::detail::torch_normal {

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

/// float: a * b is exact in double (24 + 24 bits), so sum = RN(a * b + c) is one rounding,
/// and rounding it to float is the correct result unless it lies exactly halfway between two
/// floats (the first rounding may have made that tie) or below float's normal range; those rare
/// cases round to odd first.
template <>
struct fused<float> {
  double sum;
  float value;
  constexpr fused(float a, float b, float c) noexcept
      : sum(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c)),
        value((__builtin_bit_cast(std::uint64_t, sum) & 0x1fff'ffffU) != 0x1000'0000U &&
                      (sum > 0x1p-126 || sum < -0x1p-126)
                  ? static_cast<float>(sum)
                  : static_cast<float>(
                        add_round_to_odd(static_cast<double>(a) * static_cast<double>(b), static_cast<double>(c)))) {}
};

/// double (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
/// using rounding to odd", IEEE TC 2008, algorithm 5): a * b = p + pe exactly (Dekker's product
/// on Veltkamp's halves ah + (a - ah), bh + (b - bh)), c + p = th + tl exactly (Knuth's TwoSum),
/// then RN(th + RO(tl + pe)), the rounding to odd from a third TwoSum, tl + pe = s + se.
/// Needs |a|, |b| < 2^995 and no underflow in the error terms: true of every use here.
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
}  // namespace static_attention::detail::torch_normal

#include <static_attention/core/detail/math_end.hpp>

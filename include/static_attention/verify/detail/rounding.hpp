// SPDX-License-Identifier: BSL-1.0
// Outward rounding in constant evaluation: the error allowances every transfer function adds.
//
// The bounds are computed in double. A double operation rounded to nearest is off by at most
// half an ulp, which up() and down() cover; a sum of n terms in any order (any blocking, with
// or without FMA) is off by at most gamma(n) times the sum of the terms' magnitudes, which
// dot_slack() covers, both for the double arithmetic of the bound and for the T arithmetic of
// the module's own forward pass.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace static_attention::verify::detail {

/// |x|.
constexpr double mag(double x) noexcept { return x < 0 ? -x : x; }
/// The larger of a and b.
constexpr double max2(double a, double b) noexcept { return a < b ? b : a; }
/// The smaller of a and b.
constexpr double min2(double a, double b) noexcept { return b < a ? b : a; }

inline constexpr double dmax = std::numeric_limits<double>::max();
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// The unit roundoff of T (half an ulp of 1): 2^-24 for float, 2^-53 for double.
template <class T>
inline constexpr double unit = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
/// The largest absolute error of one T operation that underflows: the smallest subnormal.
template <class T>
inline constexpr double tiny = std::is_same_v<T, float> ? 0x1p-149 : 0x1p-1074;

/// At least the exact value that x is the double rounding of (x itself for infinities).
constexpr double up(double x) noexcept {
  if (!(x < dmax && x > -dmax)) return x;
  return x + (mag(x) * 0x1p-52 + 0x1p-1074);
}
/// At most the exact value that x is the double rounding of.
constexpr double down(double x) noexcept {
  if (!(x < dmax && x > -dmax)) return x;
  return x - (mag(x) * 0x1p-52 + 0x1p-1074);
}

/// gamma(n) = n u / (1 - n u): the relative error bound of n roundings of unit u.
constexpr double gamma(double u, std::size_t n) noexcept {
  const double nu = static_cast<double>(n) * u;
  return nu / (1 - nu);
}

/// How far a sum of n terms of total magnitude s may be from the exact sum, in double (the
/// bound's own arithmetic, with room for three more operations) plus in T (the forward pass),
/// plus n underflows of T. 1.01 covers the rounding of this computation itself.
template <class T>
constexpr double dot_slack(std::size_t n, double s) noexcept {
  return s * (gamma(unit<T>, n) + gamma(0x1p-53, n + 6)) * 1.01 + static_cast<double>(n + 1) * tiny<T>;
}

/// The least float above f (f itself for +inf and NaN).
constexpr float next_up(float f) noexcept {
  if (f != f || f == std::numeric_limits<float>::infinity()) return f;
  if (f == 0) return std::numeric_limits<float>::denorm_min();
  const auto b = std::bit_cast<std::uint32_t>(f);
  return std::bit_cast<float>(f > 0 ? b + 1u : b - 1u);
}
/// The greatest float below f.
constexpr float next_down(float f) noexcept { return -next_up(-f); }

/// The least T >= x (T float or double).
template <class T>
constexpr T round_up_to(double x) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    if (x != x) return static_cast<float>(x);
    if (x > static_cast<double>(std::numeric_limits<float>::max())) return std::numeric_limits<float>::infinity();
    if (x < -static_cast<double>(std::numeric_limits<float>::max()))
      return x == -inf ? -std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::max();
    const auto f = static_cast<float>(x);
    return static_cast<double>(f) < x ? next_up(f) : f;
  } else {
    return x;
  }
}
/// The greatest T <= x.
template <class T>
constexpr T round_down_to(double x) noexcept {
  return -round_up_to<T>(-x);
}

/// The policy of the sound transfer functions. A test may pass another with a planted fault
/// (see verify/domains.hpp), to show that the soundness checks catch it.
struct sound_policy {
  /// Rounds every bound inward instead of outward.
  static constexpr bool round_inward = false;
  /// A causal softmax bounded as if no score were masked.
  static constexpr bool softmax_ignores_mask = false;
  /// LayerNorm bounded with the variance of the set's centre, as if it were fixed.
  static constexpr bool layer_norm_fixed_variance = false;
};

/// Widens [lo, hi] by s on each side (narrows it, under a policy that rounds inward).
template <class P>
constexpr void widen(double& lo, double& hi, double s) noexcept {
  if constexpr (P::round_inward) {
    lo = lo + s;
    hi = hi - s;
  } else {
    lo = down(lo - s);
    hi = up(hi + s);
  }
}

}  // namespace static_attention::verify::detail

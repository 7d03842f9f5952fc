// SPDX-License-Identifier: BSL-1.0
// static_attention/core/math.hpp: constexpr exp, log, sqrt and tanh for float and double.
//
// Contract (float and double alike; measured figures in docs/accuracy.md):
//  * constexpr and noexcept; usable in static_assert on GCC and Clang (Clang refuses
//    std::exp and friends in constant expressions).
//  * Accuracy against a correctly rounded reference: exp, log <= 1 ulp; sqrt correctly
//    rounded; tanh <= 2 ulp.
//  * Special values as IEEE 754 / glibc: NaN in gives a quiet NaN out; overflow gives +inf and
//    underflow +0 (subnormal results are rounded once); log(x < 0) = NaN, log(+-0) = -inf;
//    sqrt(x < 0) = NaN, sqrt(-0) = -0; tanh(+-0) = +-0, tanh(+-inf) = +-1.
//    The floating-point environment is never read and errno is never set.
//  * Same bits at compile time and at run time, for every input: exp, log and tanh run the
//    same code in both worlds, and sqrt is correctly rounded in both. The headers turn off
//    FMA contraction for their own code (Clang: a pragma per function; GCC: an optimize
//    pragma, which also keeps GCC from inlining these functions into callers built with
//    contraction on, so build with -ffp-contract=off to get them inlined and vectorised).
//    -ffast-math (or -funsafe-math-optimizations, -ffinite-math-only, -fassociative-math,
//    -frounding-math with a non-default mode) voids the contract.
//  * Array overloads apply the scalar function element by element, with the same bits; their
//    loops have no branches so GCC and Clang vectorise them at -O3 (with -march=native).
//    They write min(in.size(), out.size()) elements; in and out may be the same span.
//  * Integer arguments are converted to double, as <cmath> does: sqrt(8) is sqrt(8.0).
//  * long double is not supported (there is no long double exp, log, sqrt or tanh here): a call
//    with a long double argument is a compile error that says so, instead of an ambiguity.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

#include "static_attention/core/detail/math_common.hpp"
#include "static_attention/core/detail/math_exp.hpp"
#include "static_attention/core/detail/math_log.hpp"
#include "static_attention/core/detail/math_sqrt.hpp"
#include "static_attention/core/detail/math_tanh.hpp"
#include "static_attention/core/detail/mve_kernels.hpp"

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention {

/// e^x, within 1 ulp; +inf above 709.78 (float: 88.72), +0 far below -745 (float: -103.9).
[[nodiscard]] constexpr double exp(double x) noexcept { return detail::math::exp_impl(x); }
/// e^x, within 1 ulp (computed in float).
[[nodiscard]] constexpr float exp(float x) noexcept { return detail::math::exp_impl(x); }

/// Natural logarithm, within 1 ulp; NaN for x < 0, -inf for +-0.
[[nodiscard]] constexpr double log(double x) noexcept { return detail::math::log_impl(x); }
/// Natural logarithm, within 1 ulp (computed in float).
[[nodiscard]] constexpr float log(float x) noexcept { return detail::math::log_impl(x); }

/// Square root, correctly rounded; NaN for x < 0, sqrt(-0) = -0.
[[nodiscard]] constexpr double sqrt(double x) noexcept { return detail::math::sqrt_impl(x); }
/// Square root, correctly rounded; NaN for x < 0, sqrt(-0) = -0.
[[nodiscard]] constexpr float sqrt(float x) noexcept { return detail::math::sqrt_impl(x); }

/// Hyperbolic tangent, within 2 ulp; odd, with tanh(+-inf) = +-1.
[[nodiscard]] constexpr double tanh(double x) noexcept { return detail::math::tanh_impl(x); }
/// Hyperbolic tangent, within 2 ulp (computed in float).
[[nodiscard]] constexpr float tanh(float x) noexcept { return detail::math::tanh_impl(x); }

/// An integer argument is converted to double, as by <cmath>: `sqrt(8)` is `sqrt(8.0)`.
template <std::integral I>
[[nodiscard]] constexpr double exp(I x) noexcept {
  return detail::math::exp_impl(static_cast<double>(x));
}
template <std::integral I>
[[nodiscard]] constexpr double log(I x) noexcept {
  return detail::math::log_impl(static_cast<double>(x));
}
template <std::integral I>
[[nodiscard]] constexpr double sqrt(I x) noexcept {
  return detail::math::sqrt_impl(static_cast<double>(x));
}
template <std::integral I>
[[nodiscard]] constexpr double tanh(I x) noexcept {
  return detail::math::tanh_impl(static_cast<double>(x));
}

namespace detail::math {
template <class T>
inline constexpr bool is_long_double = std::is_same_v<T, long double>;

// The one refusal the four long double overloads below share.
template <class T>
constexpr T refuse_long_double(T x) noexcept {
  static_assert(!is_long_double<T>,
                "static_attention::exp, log, sqrt and tanh have float and double overloads only; long double is "
                "not supported (convert with static_cast<double>)");
  return x;
}
}  // namespace detail::math

/// long double: refused with a reason (an exact match, so it is chosen over the float and double
/// overloads, which would otherwise be ambiguous).
template <class T>
requires detail::math::is_long_double<T>
constexpr T exp(T x) noexcept { return detail::math::refuse_long_double(x); }
/// long double: refused, as exp.
template <class T>
requires detail::math::is_long_double<T>
constexpr T log(T x) noexcept { return detail::math::refuse_long_double(x); }
/// long double: refused, as exp.
template <class T>
requires detail::math::is_long_double<T>
constexpr T sqrt(T x) noexcept { return detail::math::refuse_long_double(x); }
/// long double: refused, as exp.
template <class T>
requires detail::math::is_long_double<T>
constexpr T tanh(T x) noexcept { return detail::math::refuse_long_double(x); }

namespace detail::math {
// One loop for every array overload. Raw pointers keep the loop free of span bounds checks
// (_GLIBCXX_ASSERTIONS), so it vectorises; a possible overlap of in and out is left to the
// vectoriser's run-time alias check.
template <class T, class F>
constexpr void apply(std::span<const T> in, std::span<T> out, F f) noexcept {
  const std::size_t n = in.size() < out.size() ? in.size() : out.size();
  const T* src = in.data();
  T* dst = out.data();
  for (std::size_t i = 0; i < n; ++i) {
    dst[i] = f(src[i]);
  }
}
}  // namespace detail::math

/// out[i] = exp(in[i]), same bits as the scalar exp; vectorises.
constexpr void exp(std::span<const float> in, std::span<float> out) noexcept {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
  // Helium: four lanes at a time where the arguments keep every step normal (mve_kernels.hpp).
  if (!std::is_constant_evaluated())
    return detail::mve::exp_f32(in.data(), out.data(), in.size() < out.size() ? in.size() : out.size());
#endif
  detail::math::apply(in, out, [](float v) { return detail::math::exp_impl(v); });
}
/// out[i] = exp(in[i]), same bits as the scalar exp; vectorises.
constexpr void exp(std::span<const double> in, std::span<double> out) noexcept {
  detail::math::apply(in, out, [](double v) { return detail::math::exp_impl(v); });
}
/// out[i] = log(in[i]), same bits as the scalar log; vectorises.
constexpr void log(std::span<const float> in, std::span<float> out) noexcept {
  detail::math::apply(in, out, [](float v) { return detail::math::log_impl(v); });
}
/// out[i] = log(in[i]), same bits as the scalar log; vectorises.
constexpr void log(std::span<const double> in, std::span<double> out) noexcept {
  detail::math::apply(in, out, [](double v) { return detail::math::log_impl(v); });
}
/// out[i] = tanh(in[i]), same bits as the scalar tanh; vectorises.
constexpr void tanh(std::span<const float> in, std::span<float> out) noexcept {
  detail::math::apply(in, out, [](float v) { return detail::math::tanh_impl(v); });
}
/// out[i] = tanh(in[i]), same bits as the scalar tanh; vectorises.
constexpr void tanh(std::span<const double> in, std::span<double> out) noexcept {
  detail::math::apply(in, out, [](double v) { return detail::math::tanh_impl(v); });
}

}  // namespace static_attention

#include <static_attention/core/detail/math_end.hpp>

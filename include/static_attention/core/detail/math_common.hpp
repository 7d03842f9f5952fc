// SPDX-License-Identifier: BSL-1.0
// Shared pieces of the constexpr math kernels: bit access, powers of two, and the
// guards that keep the compiler from fusing a*b+c into an FMA.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::math {

inline constexpr double inf_d = std::numeric_limits<double>::infinity();
inline constexpr float inf_f = std::numeric_limits<float>::infinity();

// ln 2 split so that k * ln2_hi is exact for |k| < 2^21 (the low 21 bits of ln2_hi are zero).
inline constexpr double ln2_hi = 0x1.62e42fee00000p-1;
inline constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
inline constexpr double inv_ln2 = 0x1.71547652b82fep+0;

// Adding then subtracting 1.5 * 2^52 rounds a double with |v| < 2^51 to the nearest integer,
// using only +/-, so it is constexpr and vectorises; the integer also sits in the low bits.
inline constexpr double round_shift = 0x1.8p52;

[[nodiscard]] constexpr std::uint64_t bits(double x) noexcept { return std::bit_cast<std::uint64_t>(x); }
[[nodiscard]] constexpr std::uint32_t bits(float x) noexcept { return std::bit_cast<std::uint32_t>(x); }
[[nodiscard]] constexpr double as_double(std::uint64_t b) noexcept { return std::bit_cast<double>(b); }
[[nodiscard]] constexpr float as_float(std::uint32_t b) noexcept { return std::bit_cast<float>(b); }

// Classification by bits: Clang refuses any arithmetic on a NaN in a constant expression,
// so NaN and infinity are detected and steered around the arithmetic, never computed with.
[[nodiscard]] constexpr bool is_nan(double x) noexcept {
  return (bits(x) & 0x7fff'ffff'ffff'ffffULL) > 0x7ff0'0000'0000'0000ULL;
}
[[nodiscard]] constexpr bool is_nan(float x) noexcept { return (bits(x) & 0x7fff'ffffU) > 0x7f80'0000U; }

// A NaN input is returned quiet, with its payload, as glibc does (it computes x + x).
[[nodiscard]] constexpr double quiet(double x) noexcept { return as_double(bits(x) | 0x0008'0000'0000'0000ULL); }
[[nodiscard]] constexpr float quiet(float x) noexcept { return as_float(bits(x) | 0x0040'0000U); }

[[nodiscard]] constexpr double abs(double x) noexcept { return as_double(bits(x) & 0x7fff'ffff'ffff'ffffULL); }

// |magnitude| with the sign bit of sign_of.
[[nodiscard]] constexpr double copysign(double magnitude, double sign_of) noexcept {
  return as_double((bits(magnitude) & 0x7fff'ffff'ffff'ffffULL) | (bits(sign_of) & 0x8000'0000'0000'0000ULL));
}
[[nodiscard]] constexpr float copysign(float magnitude, float sign_of) noexcept {
  return as_float((bits(magnitude) & 0x7fff'ffffU) | (bits(sign_of) & 0x8000'0000U));
}

// 2^k for -1022 <= k <= 1023, built from bits (exact, and cheap in a vector loop).
[[nodiscard]] constexpr double pow2(std::int64_t k) noexcept {
  return as_double(static_cast<std::uint64_t>(k + 1023) << 52);
}

// round(v) for |v| < 2^51, as an integer and as a double.
struct rounded {
  std::int64_t k;
  double kd;
};
[[nodiscard]] constexpr rounded round_to_int(double v) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const double shifted = v + round_shift;
  const double kd = shifted - round_shift;
  // Modular conversion (defined since C++20) turns the bit difference into a signed k.
  const auto k = static_cast<std::int64_t>(bits(shifted) - bits(round_shift));
  return {k, kd};
}

// c ? a : b through bit masks. With a ternary GCC sinks the computation of a value into
// the one branch that uses it, and a branch holding FP operations that "could trap"
// (-ftrapping-math, the default) is never if-converted, so the loop would not vectorise.
// Masks keep both values used on every path.
[[nodiscard]] constexpr double select(bool c, double a, double b) noexcept {
  const std::uint64_t m = std::uint64_t{0} - static_cast<std::uint64_t>(c);
  return as_double((bits(a) & m) | (bits(b) & ~m));
}
[[nodiscard]] constexpr float select(bool c, float a, float b) noexcept {
  const std::uint32_t m = std::uint32_t{0} - static_cast<std::uint32_t>(c);
  return as_float((bits(a) & m) | (bits(b) & ~m));
}

// The argument that reaches a kernel: x clamped to [lo, hi].
// In constant evaluation a NaN becomes 0, since Clang rejects any NaN operand (and GCC any
// overflow), so special inputs never reach the arithmetic there; their results are selected
// by the caller. At run time a NaN (or an infinity) goes through as NaN, which every kernel
// tolerates, and the bound is added to x - x (0 for finite x) so it is not a constant: with
// a constant, GCC folds the kernel on that path and leaves a branch (see select).
// For double and float alike.
template <class F>
[[nodiscard]] constexpr F kernel_arg(F x, F lo, F hi) noexcept {
  if (std::is_constant_evaluated()) {
    if (is_nan(x)) {
      return F{0};
    }
    return x < lo ? lo : (x > hi ? hi : x);
  }
  const F zero = x - x;
  const F low = lo + zero;
  const F high = hi + zero;
  return select(x < lo, low, select(x > hi, high, x));
}

}  // namespace static_attention::detail::math

#include <static_attention/core/detail/math_end.hpp>

// SPDX-License-Identifier: BSL-1.0
// Special values as IEEE 754 / glibc, checked in both worlds: each check is a constexpr bool
// function run by static_assert and again at run time (SA_CHECK_BOTH).
#include <bit>
#include <cstdint>
#include <limits>

#include <doctest/doctest.h>

#include "constexpr_check.hpp"
#include "math_test_support.hpp"

namespace {

namespace sa = static_attention;
using sa_math_test::bits_of;

template <class T>
constexpr T inf = std::numeric_limits<T>::infinity();
template <class T>
constexpr T qnan = std::numeric_limits<T>::quiet_NaN();
template <class T>
constexpr T tiny = std::numeric_limits<T>::denorm_min();

template <class T>
constexpr bool is_nan(T x) {
  return x != x;
}
// Same value and same sign (tells +0 from -0).
template <class T>
constexpr bool same(T a, T b) {
  return bits_of(a) == bits_of(b);
}

template <class T>
constexpr bool exp_specials() {
  constexpr bool d = sizeof(T) == 8;
  return same(sa::exp(T{0}), T{1}) && same(sa::exp(-T{0}), T{1}) && same(sa::exp(inf<T>), inf<T>) &&
         same(sa::exp(-inf<T>), T{0}) && is_nan(sa::exp(qnan<T>)) && is_nan(sa::exp(-qnan<T>)) &&
         same(sa::exp(tiny<T>), T{1}) && same(sa::exp(-tiny<T>), T{1}) &&
         // overflow to +inf, underflow to +0, subnormal results in between
         same(sa::exp(d ? T(710) : T(89)), inf<T>) && same(sa::exp(std::numeric_limits<T>::max()), inf<T>) &&
         same(sa::exp(d ? T(-746) : T(-104)), T{0}) && same(sa::exp(-std::numeric_limits<T>::max()), T{0}) &&
         sa::exp(d ? T(-740) : T(-100)) > T{0} && sa::exp(d ? T(-740) : T(-100)) < std::numeric_limits<T>::min() &&
         sa::exp(d ? T(709.7) : T(88.7)) < inf<T>;
}

template <class T>
constexpr bool log_specials() {
  return same(sa::log(T{1}), T{0}) && same(sa::log(T{0}), -inf<T>) && same(sa::log(-T{0}), -inf<T>) &&
         same(sa::log(inf<T>), inf<T>) && is_nan(sa::log(-inf<T>)) && is_nan(sa::log(T{-1})) &&
         is_nan(sa::log(-tiny<T>)) && is_nan(sa::log(qnan<T>)) &&
         // subnormal input: log(2^-1074) = -744.44..., log(2^-149) = -103.28...
         sa::log(tiny<T>) < T(-100) && sa::log(tiny<T>) > T(-745) && sa::log(std::numeric_limits<T>::max()) > T(88) &&
         sa::log(std::numeric_limits<T>::max()) < inf<T>;
}

template <class T>
constexpr bool sqrt_specials() {
  return same(sa::sqrt(T{0}), T{0}) && same(sa::sqrt(-T{0}), -T{0}) && same(sa::sqrt(inf<T>), inf<T>) &&
         is_nan(sa::sqrt(-inf<T>)) && is_nan(sa::sqrt(T{-1})) && is_nan(sa::sqrt(-tiny<T>)) &&
         is_nan(sa::sqrt(qnan<T>)) && same(sa::sqrt(T{4}), T{2}) && same(sa::sqrt(T{0.25}), T{0.5}) &&
         // subnormal input, exact result
         (sizeof(T) == 8 ? same(sa::sqrt(T(0x1p-1074)), T(0x1p-537)) : same(sa::sqrt(T(0x1p-148)), T(0x1p-74)));
}

template <class T>
constexpr bool tanh_specials() {
  return same(sa::tanh(T{0}), T{0}) && same(sa::tanh(-T{0}), -T{0}) && same(sa::tanh(inf<T>), T{1}) &&
         same(sa::tanh(-inf<T>), T{-1}) && is_nan(sa::tanh(qnan<T>)) && same(sa::tanh(tiny<T>), tiny<T>) &&
         same(sa::tanh(-tiny<T>), -tiny<T>) && same(sa::tanh(T(100)), T{1}) && same(sa::tanh(T(-100)), T{-1}) &&
         same(sa::tanh(std::numeric_limits<T>::max()), T{1}) && sa::tanh(T{1}) < T{1};
}

// Odd symmetry and monotonicity on a few points around the branch switch at |x| = 1.
template <class T>
constexpr bool tanh_shape() {
  const T xs[] = {T(0.25), T(0.999), T(1), T(1.001), T(3), T(9.5)};
  T prev = T{0};
  for (const T x : xs) {
    if (!same(sa::tanh(-x), -sa::tanh(x)) || !(sa::tanh(x) >= prev)) {
      return false;
    }
    prev = sa::tanh(x);
  }
  return true;
}

// A NaN input comes back quiet, with its payload (glibc returns x + x).
constexpr bool nan_payload_kept() {
  const double payload_nan = std::bit_cast<double>(std::uint64_t{0x7ff8'0000'0000'1234ULL});
  return bits_of(sa::exp(payload_nan)) == 0x7ff8'0000'0000'1234ULL &&
         bits_of(sa::log(payload_nan)) == 0x7ff8'0000'0000'1234ULL;
}

}  // namespace

TEST_CASE("math: exp special values (constexpr and run time)") {
  SA_CHECK_BOTH(exp_specials<double>());
  SA_CHECK_BOTH(exp_specials<float>());
}

TEST_CASE("math: log special values (constexpr and run time)") {
  SA_CHECK_BOTH(log_specials<double>());
  SA_CHECK_BOTH(log_specials<float>());
}

TEST_CASE("math: sqrt special values (constexpr and run time)") {
  SA_CHECK_BOTH(sqrt_specials<double>());
  SA_CHECK_BOTH(sqrt_specials<float>());
}

TEST_CASE("math: tanh special values and shape (constexpr and run time)") {
  SA_CHECK_BOTH(tanh_specials<double>());
  SA_CHECK_BOTH(tanh_specials<float>());
  SA_CHECK_BOTH(tanh_shape<double>());
  SA_CHECK_BOTH(tanh_shape<float>());
}

TEST_CASE("math: NaN payloads survive (constexpr and run time)") { SA_CHECK_BOTH(nan_payload_kept()); }

TEST_CASE("math: the functions are noexcept") {
  static_assert(noexcept(sa::exp(1.0))&& noexcept(sa::log(1.0f))&& noexcept(sa::sqrt(1.0))&& noexcept(sa::tanh(1.0f)));
}

// SPDX-License-Identifier: BSL-1.0
// Accuracy contract at run time: max ULP error against the long double <cmath> reference
// on 10^5 deterministic inputs per function and type (half uniform over the interesting
// range, half random bit patterns over every binade). tools/dev/ulp_report.cpp runs >= 10^6.
#include <cstddef>
#include <cstdint>

#include <doctest/doctest.h>

#include "math_test_support.hpp"

namespace {

using sa_math_test::fn;

constexpr std::size_t samples = 100'000;

template <class T>
long double max_ulp(fn f, std::uint64_t seed, T& worst_input) {
  sa_math_test::rng r{seed};
  long double worst = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    const T x = sa_math_test::sample_input<T>(r, f, i);
    const long double e =
        sa_math_test::ulp_error(sa_math_test::apply(f, x), sa_math_test::reference(f, static_cast<long double>(x)));
    if (e > worst) {
      worst = e;
      worst_input = x;
    }
  }
  return worst;
}

template <class T>
void check_bound(fn f, long double bound) {
  T worst_input{};
  const long double worst = max_ulp<T>(f, 0xacc0'0000U + static_cast<unsigned>(f), worst_input);
  INFO("max ulp " << static_cast<double>(worst) << " at input " << worst_input);
  CHECK(worst <= bound);
}

}  // namespace

TEST_CASE("math: exp within 1 ulp") {
  check_bound<double>(fn::exp, 1.0L);
  check_bound<float>(fn::exp, 1.0L);
}

TEST_CASE("math: log within 1 ulp") {
  check_bound<double>(fn::log, 1.0L);
  check_bound<float>(fn::log, 1.0L);
}

TEST_CASE("math: sqrt correctly rounded") {
  // Against long double, 0.5 ulp plus the reference's own rounding (2^-11 ulp for double).
  check_bound<double>(fn::sqrt, 0.5L + 0x1p-10L);
  check_bound<float>(fn::sqrt, 0.5L + 0x1p-10L);
}

TEST_CASE("math: the constexpr software sqrt equals the hardware sqrt, bit for bit") {
  // The compile-time paths (double, and float by 32/64-bit integers only: also the run-time sqrt
  // of a Cortex-M3) run at run time on many inputs, against IEEE sqrt.
  sa_math_test::rng r{0x5c47'0000U};
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < samples; ++i) {
    const double x = sa_math_test::random_bits<double>(r, 2046U, false);
    if (x > 0.0 && sa_math_test::bits_of(static_attention::detail::math::sqrt_soft_positive(x)) !=
                       sa_math_test::bits_of(std::sqrt(x))) {
      ++mismatches;
    }
    const auto xf = static_cast<float>(sa_math_test::random_bits<float>(r, 254U, false));
    const float soft_f = static_attention::detail::math::sqrt_soft_positive(xf);  // the float one
    if (xf > 0.0f && sa_math_test::bits_of(soft_f) != sa_math_test::bits_of(std::sqrt(xf))) {
      ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("math: tanh within 2 ulp") {
  check_bound<double>(fn::tanh, 2.0L);
  check_bound<float>(fn::tanh, 2.0L);
}

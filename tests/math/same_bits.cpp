// SPDX-License-Identifier: BSL-1.0
// Same bits in both worlds (constexpr vs run time): for each function and type, a table of
// results computed in constant evaluation is compared bit for bit with the same inputs
// computed at run time, by the scalar functions and by the array overloads.
#include <array>
#include <cstddef>
#include <span>

#include <doctest/doctest.h>

#include "math_test_support.hpp"

namespace {

using sa_math_test::fn;
namespace sa = static_attention;

constexpr std::size_t table_size = 1024;

template <class T, fn F>
struct table {
  static constexpr auto inputs = sa_math_test::make_inputs<T, table_size>(F, 0x5eed0000U + static_cast<unsigned>(F));
  static constexpr auto expected = sa_math_test::result_bits(F, inputs);  // constant-evaluated
};

// The inputs copied through a volatile read, so the optimiser cannot fold the run-time calls.
template <class T, std::size_t N>
std::array<T, N> runtime_copy(const std::array<T, N>& in) {
  std::array<T, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    const volatile T* p = &in[i];
    out[i] = *p;
  }
  return out;
}

template <class T, fn F>
void check_scalar() {
  const auto in = runtime_copy(table<T, F>::inputs);
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto got = sa_math_test::bits_of(sa_math_test::apply(F, in[i]));
    if (got != table<T, F>::expected[i]) {
      ++mismatches;
      INFO("input " << in[i] << " (index " << i << ")");
      CHECK(got == table<T, F>::expected[i]);
    }
  }
  CHECK(mismatches == 0);
}

template <class T, fn F>
void check_array() {
  const auto in = runtime_copy(table<T, F>::inputs);
  std::array<T, table_size> out{};
  const std::span<const T> src{in};
  const std::span<T> dst{out};
  if constexpr (F == fn::exp) {
    sa::exp(src, dst);
  } else if constexpr (F == fn::log) {
    sa::log(src, dst);
  } else {
    sa::tanh(src, dst);
  }
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (sa_math_test::bits_of(out[i]) != table<T, F>::expected[i]) {
      ++mismatches;
      INFO("input " << in[i] << " (index " << i << ")");
      CHECK(sa_math_test::bits_of(out[i]) == table<T, F>::expected[i]);
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("math: constexpr table == run-time scalar results, bit for bit (double)") {
  check_scalar<double, fn::exp>();
  check_scalar<double, fn::log>();
  check_scalar<double, fn::sqrt>();
  check_scalar<double, fn::tanh>();
}

TEST_CASE("math: constexpr table == run-time scalar results, bit for bit (float)") {
  check_scalar<float, fn::exp>();
  check_scalar<float, fn::log>();
  check_scalar<float, fn::sqrt>();
  check_scalar<float, fn::tanh>();
}

TEST_CASE("math: constexpr table == run-time array overloads, bit for bit") {
  check_array<double, fn::exp>();
  check_array<double, fn::log>();
  check_array<double, fn::tanh>();
  check_array<float, fn::exp>();
  check_array<float, fn::log>();
  check_array<float, fn::tanh>();
}

TEST_CASE("math: array overloads work in place and in constant evaluation") {
  constexpr auto ct = [] {
    std::array<double, 4> v{0.0, 1.0, -1.0, 2.0};
    sa::exp(std::span<const double>{v}, std::span<double>{v});
    return v;
  }();
  static_assert(ct[0] == 1.0);
  std::array<double, 4> v{0.0, 1.0, -1.0, 2.0};
  sa::exp(std::span<const double>{v}, std::span<double>{v});
  CHECK(v == ct);
}

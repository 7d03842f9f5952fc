// SPDX-License-Identifier: BSL-1.0
// STATIC_ATTENTION_FAST_FMA (defined for this file by CMake): the kernels may fuse, and the
// difference from the constant evaluator stays within the bound docs/accuracy.md states:
// |fast - constexpr| <= 2 gamma_K sum_k |a_ik b_kj|, gamma_K = K u / (1 - K u), u = 2^-p (both
// sums are within gamma_K sum |a b| of the exact one: Higham, Accuracy and Stability, 3.1).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <static_attention/core/matmul.hpp>

#include "same_bits_support.hpp"

namespace sa = static_attention;
using same_bits::inputs;
using same_bits::launder;

static_assert(!sa::detail::same_bits_at_run_time, "this test is built with STATIC_ATTENTION_FAST_FMA");

namespace {

template <class T, std::size_t R, std::size_t K, std::size_t C>
void check_bound() {
  static constexpr auto a = inputs<sa::matrix<T, R, K>>(R + 3 * K);
  static constexpr auto b = inputs<sa::matrix<T, K, C>>(C + 5 * K);
  static constexpr auto expected = sa::matmul(a, b);
  const auto got = sa::matmul(launder(a), launder(b));
  constexpr double u = std::numeric_limits<T>::epsilon() / 2;
  constexpr double gamma = K * u / (1 - K * u);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      double abs_sum = 0;
      for (std::size_t k = 0; k < K; ++k) abs_sum += std::abs(double(a(i, k)) * double(b(k, j)));
      const double diff = std::abs(double(got(i, j)) - double(expected(i, j)));
      CHECK(diff <= 2 * gamma * abs_sum);
    }
}

}  // namespace

TEST_CASE_TEMPLATE("fast mode: fused kernels stay within 2 gamma_K sum |a b| of the constant evaluator", T, float,
                   double) {
  check_bound<T, 6, 3, 2>();
  check_bound<T, 17, 33, 65>();
  check_bound<T, 65, 65, 65>();
  check_bound<T, 5, 300, 17>();
}

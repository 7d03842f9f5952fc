// SPDX-License-Identifier: BSL-1.0
// Element-wise operations at both times, alone and composed as a user writes them (a * b + c,
// c - a * s), where inlining at run time could otherwise fuse the product into the sum; gelu
// (vectorised at run time) and layer_norm.
#include <doctest/doctest.h>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/layer_norm.hpp>

#include "same_bits_support.hpp"

namespace sa = static_attention;
using same_bits::inputs;
using same_bits::launder;

namespace {

template <class M>
void check_elementwise() {
  using T = typename M::value_type;
  static constexpr auto a = inputs<M>(1);
  static constexpr auto b = inputs<M>(2);
  static constexpr auto c = inputs<M>(3);
  static constexpr T s = T(0.3);
  static constexpr auto sum = a + b;
  static constexpr auto difference = a - b;
  static constexpr auto product = a * b;
  static constexpr auto quotient = a / b;
  static constexpr auto fused_shape = a * b + c;
  static constexpr auto scaled = c - a * s;
  static constexpr auto scaled_left = s * a + b;
  static constexpr auto negated = -a;
  static constexpr auto gelu_a = sa::gelu(a);  // vectors and the array tanh at run time
  const auto la = launder(a);
  const auto lb = launder(b);
  const auto lc = launder(c);
  SAME_BITS_CHECK(sum, la + lb, a + b);
  SAME_BITS_CHECK(difference, la - lb, a - b);
  SAME_BITS_CHECK(product, la * lb, a * b);
  SAME_BITS_CHECK(quotient, la / lb, a / b);
  SAME_BITS_CHECK(fused_shape, la * lb + lc, a * b + c);
  SAME_BITS_CHECK(scaled, lc - la * s, c - a * s);
  SAME_BITS_CHECK(scaled_left, s * la + lb, s * a + b);
  SAME_BITS_CHECK(negated, -la, -a);
  SAME_BITS_CHECK(gelu_a, sa::gelu(la), sa::gelu(a));
}

template <class T, std::size_t N, std::size_t D>
void check_layer_norm() {
  static constexpr sa::layer_norm<T, D> ln{inputs<sa::matrix<T, 1, D>>(4), inputs<sa::matrix<T, 1, D>>(5)};
  static constexpr auto x = inputs<sa::matrix<T, N, D>>(6);
  static constexpr auto expected = ln(x);
  SAME_BITS_CHECK(expected, ln(launder(x)), ln(x));
}

}  // namespace

TEST_CASE_TEMPLATE("element-wise operations at both times", T, float, double) {
  check_elementwise<sa::matrix<T, 1, 1>>();
  check_elementwise<sa::matrix<T, 6, 3>>();
  check_elementwise<sa::matrix<T, 17, 33>>();
  check_elementwise<sa::matrix<T, 65, 5>>();
  check_elementwise<sa::tensor<T, 3, 5, 17>>();
  check_elementwise<sa::matrix<T, 33, 65>>();
}

TEST_CASE_TEMPLATE("layer_norm at both times", T, float, double) {
  check_layer_norm<T, 1, 1>();
  check_layer_norm<T, 6, 3>();
  check_layer_norm<T, 17, 33>();
  check_layer_norm<T, 5, 65>();
}

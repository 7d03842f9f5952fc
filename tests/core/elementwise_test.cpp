// SPDX-License-Identifier: BSL-1.0
// Element-wise operations on equal shapes, scalar operations, map, approx_equal.
#include <limits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;

namespace {

constexpr sa::matrix<double, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
constexpr sa::matrix<double, 2, 3> b{{6, 5, 4}, {3, 2, 1}};

constexpr bool arithmetic_is_elementwise() {
  return a + b == sa::full<double, 2, 3>(7) && a - b == sa::matrix<double, 2, 3>{{-5, -3, -1}, {1, 3, 5}} &&
         a * b == sa::matrix<double, 2, 3>{{6, 10, 12}, {12, 10, 6}} &&
         a / b == sa::matrix<double, 2, 3>{{1.0 / 6, 2.0 / 5, 3.0 / 4}, {4.0 / 3, 5.0 / 2, 6.0 / 1}};
}

constexpr bool scalars_apply_to_every_element() {
  return a * 2.0 == a + a && 2.0 * a == a + a && a / 2.0 == a * 0.5 && a + 1.0 == 1.0 + a &&
         10.0 - a == sa::matrix<double, 2, 3>{{9, 8, 7}, {6, 5, 4}} && -a == a * -1.0 &&
         a - 1.0 == sa::matrix<double, 2, 3>{{0, 1, 2}, {3, 4, 5}};
}

constexpr bool compound_assignment() {
  auto m = a;
  m += b;
  m -= 1.0;
  m *= 2.0;
  m /= sa::full<double, 2, 3>(12.0);
  auto f = sa::full<float, 2, 2>(3.0f);
  f *= 0.5;  // a double constant that float holds exactly: converted at the call, no warning
  f /= 2;
  f += f;
  return m == sa::ones<double, 2, 3>() && f == sa::full<float, 2, 2>(1.5f);
}

constexpr bool map_changes_element_type() {
  const auto halves = sa::map(sa::matrix<int, 1, 3>{{1, 2, 3}}, [](int x) { return x * 0.5; });
  static_assert(std::is_same_v<decltype(halves), const sa::matrix<double, 1, 3>>);
  return halves == sa::matrix<double, 1, 3>{{0.5, 1.0, 1.5}};
}

constexpr bool approx_equal_uses_absolute_tolerance() {
  auto c = a;
  c(1, 2) += 1e-7;
  auto nan = a;
  nan(0, 0) = std::numeric_limits<double>::quiet_NaN();
  return sa::approx_equal(a, c, 1e-6) && !sa::approx_equal(a, c, 1e-8) && !sa::approx_equal(a, nan, 1e300) &&
         sa::max_abs_diff(a, c) > 0.9e-7 && sa::max_abs_diff(a, c) < 1.1e-7;
}

constexpr bool tensors_share_the_operations() {
  constexpr sa::tensor<int, 2, 1, 2> t{{{1, 2}}, {{3, 4}}};
  return t + t == t * 2 && (t - t) == sa::zeros<int, 2, 1, 2>() && sa::approx_equal(t, t, 0);
}

}  // namespace

TEST_CASE("+, -, * and / are element-wise on equal shapes") { SA_CHECK_BOTH(arithmetic_is_elementwise()); }
TEST_CASE("scalar operations") { SA_CHECK_BOTH(scalars_apply_to_every_element()); }
TEST_CASE("compound assignment") { SA_CHECK_BOTH(compound_assignment()); }
TEST_CASE("map may change the element type") { SA_CHECK_BOTH(map_changes_element_type()); }
TEST_CASE("approx_equal and max_abs_diff") { SA_CHECK_BOTH(approx_equal_uses_absolute_tolerance()); }
TEST_CASE("tensors take the same element-wise operations") { SA_CHECK_BOTH(tensors_share_the_operations()); }

namespace {
// PyTorch's broadcasting of a 1 x C row, the bias add: y + bias adds bias to every row.
// Expected values derived by hand.
constexpr sa::matrix<double, 3, 2> y{{1, 2}, {3, 4}, {5, 6}};
constexpr sa::matrix<double, 1, 2> bias{{10, 20}};

constexpr bool a_row_broadcasts_on_either_side() {
  return y + bias == sa::matrix<double, 3, 2>{{11, 22}, {13, 24}, {15, 26}} &&
         bias + y == sa::matrix<double, 3, 2>{{11, 22}, {13, 24}, {15, 26}} &&
         y - bias == sa::matrix<double, 3, 2>{{-9, -18}, {-7, -16}, {-5, -14}} &&
         bias - y == sa::matrix<double, 3, 2>{{9, 18}, {7, 16}, {5, 14}} &&
         y * bias == sa::matrix<double, 3, 2>{{10, 40}, {30, 80}, {50, 120}} &&
         y / bias == sa::matrix<double, 3, 2>{{0.1, 0.1}, {0.3, 0.2}, {0.5, 0.3}} &&
         bias / y == sa::matrix<double, 3, 2>{{10, 10}, {10.0 / 3, 5}, {2, 20.0 / 6}};
}

constexpr bool a_row_broadcasts_over_a_batch() {
  constexpr sa::tensor<double, 2, 2, 2> t{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
  return t + bias == sa::tensor<double, 2, 2, 2>{{{11, 22}, {13, 24}}, {{15, 26}, {17, 28}}} &&
         bias * t == sa::tensor<double, 2, 2, 2>{{{10, 40}, {30, 80}}, {{50, 120}, {70, 160}}};
}

constexpr bool compound_assignment_broadcasts_a_row() {
  auto z = y;
  z += bias;
  z -= sa::matrix<double, 1, 2>{{1, 2}};
  z *= sa::matrix<double, 1, 2>{{2, 1}};
  z /= sa::matrix<double, 1, 2>{{2, 4}};
  return z == sa::matrix<double, 3, 2>{{10, 5}, {12, 5.5}, {14, 6}};
}

// 1 / m: the element-wise reciprocal, the scalar on the left of /.
constexpr bool a_scalar_divides_every_element() {
  constexpr sa::matrix<float, 1, 3> m{{2.0f, 4.0f, -0.5f}};
  constexpr sa::tensor<double, 1, 1, 2> t{{{4.0, 8.0}}};
  return 1.0f / m == sa::matrix<float, 1, 3>{{0.5f, 0.25f, -2.0f}} &&
         2.0 / t == sa::tensor<double, 1, 1, 2>{{{0.5, 0.25}}};
}

// Element access on a temporary reads; writes go through the object itself.
constexpr bool writes_through_the_object_land() {
  auto t = sa::zeros<float, 2, 2, 2>();
  t(0, 1, 1) = 5.0f;
  sa::set_item(t, 1, sa::full<float, 2, 2>(7.0f));
  auto m = sa::zeros<float, 2, 2>();
  m(0, 0) = 7.0f;
  return t[0](1, 1) == 5.0f && t[1](0, 1) == 7.0f && sa::row(m, 0)(0, 0) == 7.0f && m(0, 0) == 7.0f;
}
}  // namespace

TEST_CASE("a 1 x C row broadcasts over the rows of a matrix, on either side of + - * /") {
  SA_CHECK_BOTH(a_row_broadcasts_on_either_side());
}
TEST_CASE("a 1 x C row broadcasts over every row of a batch") { SA_CHECK_BOTH(a_row_broadcasts_over_a_batch()); }
TEST_CASE("y += bias and the other compound operators broadcast a row") {
  SA_CHECK_BOTH(compound_assignment_broadcasts_a_row());
}
TEST_CASE("s / m divides the scalar by every element") { SA_CHECK_BOTH(a_scalar_divides_every_element()); }
TEST_CASE("element writes through the matrix or tensor itself land") {
  SA_CHECK_BOTH(writes_through_the_object_land());
}

// SPDX-License-Identifier: BSL-1.0
// Constexpr and run-time truth: core/broadcast.hpp's column, vector and scalar broadcasting,
// against results worked out by hand (small exact values), as torch broadcasts them.
#include <doctest/doctest.h>

#include <constexpr_check.hpp>
#include <static_attention/core/broadcast.hpp>
#include <type_traits>

namespace {

namespace sa = static_attention;

constexpr sa::matrix<float, 2, 3> a{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
constexpr sa::matrix<float, 2, 1> column{{10.0f}, {20.0f}};

constexpr bool columns_broadcast() {
  return a + column == sa::matrix<float, 2, 3>{{11.0f, 12.0f, 13.0f}, {24.0f, 25.0f, 26.0f}} &&
         column - a == sa::matrix<float, 2, 3>{{9.0f, 8.0f, 7.0f}, {16.0f, 15.0f, 14.0f}} &&
         a * column == sa::matrix<float, 2, 3>{{10.0f, 20.0f, 30.0f}, {80.0f, 100.0f, 120.0f}} &&
         a / sa::matrix<float, 2, 1>{{2.0f}, {4.0f}} == sa::matrix<float, 2, 3>{{0.5f, 1.0f, 1.5f}, {1.0f, 1.25f, 1.5f}} &&
         a - sa::matrix<float, 1, 1>{{1.0f}} == sa::matrix<float, 2, 3>{{0.0f, 1.0f, 2.0f}, {3.0f, 4.0f, 5.0f}};
}

constexpr bool tensor_columns_broadcast() {
  const sa::tensor<float, 2, 1, 2> t{{{1.0f, 2.0f}}, {{3.0f, 4.0f}}};
  const sa::tensor<float, 2, 1, 1> c{{{1.0f}}, {{2.0f}}};
  return t - c == sa::tensor<float, 2, 1, 2>{{{0.0f, 1.0f}}, {{1.0f, 2.0f}}} &&
         c * t == sa::tensor<float, 2, 1, 2>{{{1.0f, 2.0f}}, {{6.0f, 8.0f}}};
}

constexpr bool vectors_broadcast() {
  const sa::vector<float, 3> v{{1.0f, 2.0f, 4.0f}};
  const sa::scalar<float> s{2.0f};
  return a - v == sa::matrix<float, 2, 3>{{0.0f, 0.0f, -1.0f}, {3.0f, 3.0f, 2.0f}} &&
         v * a == sa::matrix<float, 2, 3>{{1.0f, 4.0f, 12.0f}, {4.0f, 10.0f, 24.0f}} &&
         v / s == sa::vector<float, 3>{{0.5f, 1.0f, 2.0f}} && s - v == sa::vector<float, 3>{{1.0f, 0.0f, -2.0f}} &&
         v + v == sa::vector<float, 3>{{2.0f, 4.0f, 8.0f}} && 1.0f / v == sa::vector<float, 3>{{1.0f, 0.5f, 0.25f}};
}

TEST_CASE("a column broadcasts along the rows of a matrix, on either side") { SA_CHECK_BOTH(columns_broadcast()); }
TEST_CASE("a B x N x 1 tensor broadcasts along the last dimension") { SA_CHECK_BOTH(tensor_columns_broadcast()); }
TEST_CASE("a vector broadcasts as a row; vectors take scalars and values") { SA_CHECK_BOTH(vectors_broadcast()); }

// Type-level truth: the row broadcasting of elementwise.hpp and equal shapes are unchanged.
static_assert(std::is_same_v<decltype(a + sa::matrix<float, 1, 3>{}), sa::matrix<float, 2, 3>>);
static_assert(std::is_same_v<decltype(a + a), sa::matrix<float, 2, 3>>);
static_assert(std::is_same_v<decltype(column + column), sa::matrix<float, 2, 1>>);

}  // namespace

// SPDX-License-Identifier: BSL-1.0
// matrix<T, Rows, Cols>: construction, element access, factories, rows and columns.
#include <static_attention/core/matrix.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;

namespace {

constexpr bool braces_fill_rows_in_order() {
  constexpr sa::matrix<double, 2, 3> m{{1, 2, 3}, {4, 5, 6}};
  double expected = 1;
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      if (m(i, j) != expected++) return false;
  return m.data()[4] == 5 && *(m.end() - 1) == 6;
}

constexpr bool default_is_zeros_and_factories_agree() {
  const sa::matrix<float, 2, 2> d;
  const auto z = sa::zeros<float, 2, 2>();
  const auto o = sa::ones<float, 2, 2>();
  const auto f = sa::full<float, 2, 2>(2.5f);
  const auto id = sa::identity<float, 3>();
  return d == z && z == sa::matrix<float, 2, 2>{{0, 0}, {0, 0}} && o == sa::matrix<float, 2, 2>{{1, 1}, {1, 1}} &&
         f == sa::matrix<float, 2, 2>{{2.5f, 2.5f}, {2.5f, 2.5f}} &&
         id == sa::matrix<float, 3, 3>{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
}

constexpr bool element_writes_land_in_place() {
  sa::matrix<int, 3, 2> m;
  m(2, 1) = 7;
  m(0, 1) = -1;
  return m == sa::matrix<int, 3, 2>{{0, -1}, {0, 0}, {0, 7}};
}

constexpr bool row_and_col_extract() {
  constexpr sa::matrix<int, 3, 2> m{{1, 2}, {3, 4}, {5, 6}};
  return sa::row(m, 1) == sa::matrix<int, 1, 2>{{3, 4}} && sa::col(m, 1) == sa::matrix<int, 3, 1>{{2}, {4}, {6}};
}

constexpr bool equality_sees_every_element() {
  sa::matrix<double, 2, 2> a{{1, 2}, {3, 4}};
  auto b = a;
  if (!(a == b)) return false;
  b(1, 1) = 4.0000001;
  return a != b;
}

}  // namespace

TEST_CASE("nested braces fill rows in order") { SA_CHECK_BOTH(braces_fill_rows_in_order()); }
TEST_CASE("default construction is zeros; zeros, ones, full and identity") {
  SA_CHECK_BOTH(default_is_zeros_and_factories_agree());
}
TEST_CASE("m(i, j) writes the addressed element only") { SA_CHECK_BOTH(element_writes_land_in_place()); }
TEST_CASE("row(m, i) and col(m, j)") { SA_CHECK_BOTH(row_and_col_extract()); }
TEST_CASE("== compares every element") { SA_CHECK_BOTH(equality_sees_every_element()); }

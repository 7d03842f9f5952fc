// SPDX-License-Identifier: BSL-1.0
// tensor<T, B, N, D>: construction, access, stack, batch items, transpose and reductions.
#include <static_attention/core/tensor.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;

namespace {

constexpr sa::matrix<int, 2, 3> m0{{1, 2, 3}, {4, 5, 6}};
constexpr sa::matrix<int, 2, 3> m1{{7, 8, 9}, {10, 11, 12}};

constexpr bool stack_orders_items_and_elements() {
  const auto t = sa::stack(m0, m1);
  static_assert(std::is_same_v<decltype(t), const sa::tensor<int, 2, 2, 3>>);
  int expected = 1;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 3; ++j)
        if (t(b, i, j) != expected++) return false;
  return t[0] == m0 && t[1] == m1;
}

constexpr bool braces_match_stack() {
  constexpr sa::tensor<int, 2, 2, 3> t{{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}};
  return t == sa::stack(m0, m1);
}

constexpr bool set_item_replaces_one_item() {
  auto t = sa::zeros<int, 3, 2, 3>();
  sa::set_item(t, 1, m1);
  return t[0] == sa::zeros<int, 2, 3>() && t[1] == m1 && t[2] == sa::zeros<int, 2, 3>();
}

constexpr bool transpose_and_reductions_act_per_item() {
  const auto t = sa::stack(m0, m1);
  return sa::transpose(t) == sa::stack(sa::transpose(m0), sa::transpose(m1)) &&
         sa::sum(t) == sa::tensor<int, 2, 2, 1>{{{6}, {15}}, {{24}, {33}}} &&
         sa::max(t) == sa::tensor<int, 2, 2, 1>{{{3}, {6}}, {{9}, {12}}};
}

constexpr bool factories() {
  return sa::ones<float, 2, 1, 1>() == sa::tensor<float, 2, 1, 1>{{{1}}, {{1}}} &&
         sa::full<float, 1, 1, 2>(3) == sa::tensor<float, 1, 1, 2>{{{3, 3}}};
}

}  // namespace

TEST_CASE("stack(a, b) builds a batch in order; t[b] reads it back") {
  SA_CHECK_BOTH(stack_orders_items_and_elements());
}
TEST_CASE("nested braces equal stack") { SA_CHECK_BOTH(braces_match_stack()); }
TEST_CASE("set_item") { SA_CHECK_BOTH(set_item_replaces_one_item()); }
TEST_CASE("transpose, sum and max act on each batch item") { SA_CHECK_BOTH(transpose_and_reductions_act_per_item()); }
TEST_CASE("tensor factories") { SA_CHECK_BOTH(factories()); }

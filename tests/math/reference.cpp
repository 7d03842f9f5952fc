// SPDX-License-Identifier: BSL-1.0
// Golden values from numpy (tests/reference/gen_math_reference.py): an independent reference.
// Distances are in representable steps; numpy's float64 results may themselves be ~1 ulp
// off, so the double bounds are one step wider than the contract.
#include <cstddef>
#include <cstdint>
#include <span>

#include <doctest/doctest.h>

#include "math_reference.hpp"
#include "math_test_support.hpp"

namespace {

using sa_math_test::fn;

template <class T>
void check_table(fn f, std::span<const sa_math_reference::golden<T>> table, std::uint64_t max_steps) {
  std::uint64_t worst = 0;
  T worst_x{};
  for (const auto& g : table) {
    const std::uint64_t d = sa_math_test::ulp_distance(sa_math_test::apply(f, g.x), g.y);
    if (d > worst) {
      worst = d;
      worst_x = g.x;
    }
  }
  INFO("worst distance " << worst << " at input " << worst_x);
  CHECK(table.size() >= 150);
  CHECK(worst <= max_steps);
}

}  // namespace

TEST_CASE("math: agrees with numpy float64") {
  using namespace sa_math_reference;
  check_table<double>(fn::exp, exp_double, 2);
  check_table<double>(fn::log, log_double, 2);
  check_table<double>(fn::sqrt, sqrt_double, 0);
  check_table<double>(fn::tanh, tanh_double, 3);
}

TEST_CASE("math: agrees with numpy float64 rounded to float32") {
  using namespace sa_math_reference;
  check_table<float>(fn::exp, exp_float, 1);
  check_table<float>(fn::log, log_float, 1);
  check_table<float>(fn::sqrt, sqrt_float, 0);
  check_table<float>(fn::tanh, tanh_float, 2);
}

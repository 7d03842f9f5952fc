// SPDX-License-Identifier: BSL-1.0
// float weights times double inputs: one element type is required.
// expect: error: static assertion failed.*matmul\(a, b\) requires one element type. convert one operand with map\(\)
// expect: element_types_equal<float, double>
#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 6, 3> inputs{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 3, 2> w{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<double, 3, 2> w{};
  // [/snippet]
#endif
  constexpr auto queries = sa::matmul(inputs, w);
  return static_cast<int>(queries(0, 0));
}

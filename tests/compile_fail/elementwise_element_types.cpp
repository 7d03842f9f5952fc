// SPDX-License-Identifier: BSL-1.0
// float matrix minus double matrix: one element type is required.
// expect: error: static assertion failed.*requires one element type
// expect: element_types_equal<float, double>
#include <static_attention/core/matrix.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 2, 2> a{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 2, 2> b{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<double, 2, 2> b{};
  // [/snippet]
#endif
  constexpr auto c = a - b;
  return static_cast<int>(c(0, 0));
}

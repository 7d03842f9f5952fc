// SPDX-License-Identifier: BSL-1.0
// a * b on a 6x3 and a 3x2: * is element-wise; the matrix product is matmul.
// expect: error: static assertion failed.*a \* b is the element-wise product and requires equal shapes. for the matrix
// product use matmul\(a, b\) expect: shapes_equal<(static_attention::)?shape<6, 3>, (static_attention::)?shape<3, 2> ?>
#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 6, 3> x{};
  constexpr sa::matrix<float, 3, 2> w{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto y = sa::matmul(x, w);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto y = x * w;
  // [/snippet]
#endif
  return static_cast<int>(y(0, 0));
}

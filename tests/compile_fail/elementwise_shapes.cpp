// SPDX-License-Identifier: BSL-1.0
// Element-wise sum of a 6x3 and a 3x6 matrix.
// expect: error: static assertion failed.*element-wise a \+ b, a - b, a \* b and a / b require equal shapes
// expect: shapes_equal<(static_attention::)?shape<6, 3>, (static_attention::)?shape<3, 6> ?>
#include <static_attention/core/matrix.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 6, 3> a{};
  constexpr sa::matrix<float, 3, 6> b{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto c = a + sa::transpose(b);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto c = a + b;
  // [/snippet]
#endif
  return static_cast<int>(c(0, 0));
}

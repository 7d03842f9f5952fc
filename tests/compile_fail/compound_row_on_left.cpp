// SPDX-License-Identifier: BSL-1.0
// bias += y: the result (6x3) does not fit in the 1x3 row it would be stored in.
// expect: store the result in a, so b must have a's shape or be a 1 x C row; here a is the row
// expect: shapes_equal<(static_attention::)?shape<1, 3>, (static_attention::)?shape<6, 3> ?>
#include <static_attention/core/matrix.hpp>

namespace sa = static_attention;

int main() {
  sa::matrix<float, 6, 3> y{};
  sa::matrix<float, 1, 3> bias{{1, 2, 3}};
#ifdef SA_TWIN
  // [snippet:right]
  y += bias;
  // [/snippet]
#else
  // [snippet:wrong]
  bias += y;
  // [/snippet]
#endif
  return static_cast<int>(y(0, 0) + bias(0, 0));
}

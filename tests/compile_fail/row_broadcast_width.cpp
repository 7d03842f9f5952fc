// SPDX-License-Identifier: BSL-1.0
// A bias row of 4 columns added to a 6x3 matrix: a row broadcasts only over rows of its width.
// expect: static assertion failed.*a 1 x C row over every row of a, and require cols\(row\) == cols\(a\)
// expect: row_broadcast_fits<(static_attention::)?shape<6, 3>, (static_attention::)?shape<1, 4> ?>
#include <static_attention/core/matrix.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 6, 3> y{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 1, 3> bias{{1, 2, 3}};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 1, 4> bias{{1, 2, 3, 4}};
  // [/snippet]
#endif
  constexpr auto out = y + bias;
  return static_cast<int>(out(0, 0));
}

// SPDX-License-Identifier: BSL-1.0
// x - mean with a column of the wrong number of rows.
// expect: error: static assertion failed.*broadcast an R x 1 column along every row of an R x C matrix, and require rows\(column\) == rows\(a\)
// expect: column_broadcast_fits<6(UL)?, 2(UL)?>
#include <static_attention/core/broadcast.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 6, 3> x{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 6, 1> mean{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 2, 1> mean{};
  // [/snippet]
#endif
  constexpr auto y = x - mean;
  return static_cast<int>(y(0, 0));
}

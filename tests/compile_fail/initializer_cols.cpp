// SPDX-License-Identifier: BSL-1.0
// A row of two values in a matrix of three columns.
// expect: error: static assertion failed.*matrix<T, Rows, Cols>\{...\} requires exactly Cols values in every row
// expect: braced_rows_fit<(static_attention::)?shape<2, 3>, (static_attention::)?braced_rows<3, 2> ?>
#include <static_attention/core/matrix.hpp>

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr static_attention::matrix<int, 2, 3> m{{1, 2, 3}, {4, 5, 6}};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr static_attention::matrix<int, 2, 3> m{{1, 2, 3}, {4, 5}};
  // [/snippet]
#endif
  return m(0, 0);
}

// SPDX-License-Identifier: BSL-1.0
// Three braced rows for a matrix of two rows.
// expect: error: static assertion failed.*matrix<T, Rows, Cols>\{...\} requires exactly Rows braced rows
// expect: braced_rows_fit<(static_attention::)?shape<2, 3>, (static_attention::)?braced_rows<3, 3, 3> ?>
#include <static_attention/core/matrix.hpp>

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr static_attention::matrix<int, 2, 3> m{{1, 2, 3}, {4, 5, 6}};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr static_attention::matrix<int, 2, 3> m{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  // [/snippet]
#endif
  return m(0, 0);
}

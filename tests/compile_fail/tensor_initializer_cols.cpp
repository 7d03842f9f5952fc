// SPDX-License-Identifier: BSL-1.0
// A tensor whose braced rows have 2 values where D = 3: refused, not zero-filled.
// expect: error: static assertion failed.*tensor<T, B, N, D>\{...\} requires exactly D values in every row
// expect: braced_rows_fit<(static_attention::)?shape<2, 3>, (static_attention::)?braced_rows<2, 2> ?>
#include <static_attention/core/tensor.hpp>

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr static_attention::tensor<int, 2, 1, 3> t{{{1, 2, 3}}, {{4, 5, 6}}};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr static_attention::tensor<int, 2, 1, 3> t{{{1, 2}}, {{4, 5}}};
  // [/snippet]
#endif
  return t(0, 0, 0);
}

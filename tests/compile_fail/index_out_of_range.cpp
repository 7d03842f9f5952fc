// SPDX-License-Identifier: BSL-1.0
// Row 6 of a 6x3 matrix, read during constant evaluation.
// expect: index_out_of_range_for_shape
// expect: (Shape = \{6, 3\}|index_out_of_range_for_shape<6UL, 3UL)
// expect: operator\(\)\(6, 0\)
#include <static_attention/core/matrix.hpp>

int main() {
  constexpr static_attention::matrix<float, 6, 3> inputs{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr float last = inputs(5, 0);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr float last = inputs(6, 0);
  // [/snippet]
#endif
  return static_cast<int>(last);
}

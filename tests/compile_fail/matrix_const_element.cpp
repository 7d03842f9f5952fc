// SPDX-License-Identifier: BSL-1.0
// A matrix of const elements, where a const matrix is meant.
// expect: requires an element type T without const or volatile
// expect: is_plain_element<const float>
#include <static_attention/core/matrix.hpp>

namespace sa = static_attention;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  const sa::matrix<float, 2, 2> m{{1, 2}, {3, 4}};
  // [/snippet]
#else
  // [snippet:wrong]
  const sa::matrix<const float, 2, 2> m{{1, 2}, {3, 4}};
  // [/snippet]
#endif
  return static_cast<int>(m(1, 1));
}

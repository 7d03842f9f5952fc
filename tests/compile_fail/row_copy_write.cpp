// SPDX-License-Identifier: BSL-1.0
// Writing to an element of row(m, i), a copy of the row: the write would change nothing.
// expect: read-only location|returns a const value
#include <static_attention/core/matrix.hpp>

namespace sa = static_attention;

int main() {
  sa::matrix<float, 2, 2> m{};
#ifdef SA_TWIN
  // [snippet:right]
  m(0, 0) = 7.0f;
  // [/snippet]
#else
  // [snippet:wrong]
  sa::row(m, 0)(0, 0) = 7.0f;
  // [/snippet]
#endif
  return static_cast<int>(m(0, 0));
}

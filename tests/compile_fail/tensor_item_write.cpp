// SPDX-License-Identifier: BSL-1.0
// Writing to an element of t[b], a copy of the batch item: the write would change nothing.
// expect: read-only location|returns a const value
#include <static_attention/core/tensor.hpp>

namespace sa = static_attention;

int main() {
  sa::tensor<float, 2, 2, 2> t{};
#ifdef SA_TWIN
  // [snippet:right]
  t(0, 1, 1) = 5.0f;
  // [/snippet]
#else
  // [snippet:wrong]
  t[0](1, 1) = 5.0f;
  // [/snippet]
#endif
  return static_cast<int>(t(0, 1, 1));
}

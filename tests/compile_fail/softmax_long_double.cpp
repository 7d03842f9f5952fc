// SPDX-License-Identifier: BSL-1.0
// softmax of long double scores: the library's exp is float and double only.
// expect: softmax\(m\) requires a floating-point element type \(float or double\)
// expect: is_floating_element<long double>
#include <static_attention/core/softmax.hpp>

namespace sa = static_attention;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<double, 2, 2> scores{{1, 2}, {3, 4}};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<long double, 2, 2> scores{{1, 2}, {3, 4}};
  // [/snippet]
#endif
  const auto weights = sa::softmax(scores);
  return static_cast<int>(weights(0, 0));
}

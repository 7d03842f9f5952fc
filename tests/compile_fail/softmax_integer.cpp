// SPDX-License-Identifier: BSL-1.0
// softmax of integer scores.
// expect: error: static assertion failed.*softmax\(m\) requires a floating-point element type
// expect: is_floating_element<int>
#include <static_attention/core/softmax.hpp>

namespace sa = static_attention;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 2, 2> scores{{1, 2}, {3, 4}};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<int, 2, 2> scores{{1, 2}, {3, 4}};
  // [/snippet]
#endif
  constexpr auto weights = sa::softmax(scores);
  return static_cast<int>(weights(0, 0));
}

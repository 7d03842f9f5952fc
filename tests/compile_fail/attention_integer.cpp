// SPDX-License-Identifier: BSL-1.0
// An attention module over int.
// expect: error: static assertion failed.*attention modules require a floating-point element type
// expect: is_floating_element<int>
#include <static_attention/nn/self_attention.hpp>

namespace sa = static_attention;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  using T = float;
  // [/snippet]
#else
  // [snippet:wrong]
  using T = int;
  // [/snippet]
#endif
  constexpr sa::matrix<T, 3, 2> w{};
  constexpr sa::self_attention<T, 3, 2> attn{w, w, w};
  return static_cast<int>(attn.W_query(0, 0));
}

// SPDX-License-Identifier: BSL-1.0
// Six tokens into a causal module whose context length is 4.
// expect: error: static assertion failed.*the sequence is longer than the module's context_length
// expect: tokens_within_context_length<6(UL)?, 4(UL)?>
#include <static_attention/nn/causal_attention.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::causal_attention<float, 3, 2, 4> attn{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::matrix<float, 4, 3> inputs{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 6, 3> inputs{};
  // [/snippet]
#endif
  constexpr auto context = attn(inputs);
  return static_cast<int>(context(0, 0));
}

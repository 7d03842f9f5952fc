// SPDX-License-Identifier: BSL-1.0
// exp of a long double: refused with a reason, not reported as an ambiguity.
// expect: static_attention::exp, log, sqrt and tanh have float and double overloads only; long double is
#include <static_attention/core/math.hpp>

namespace sa = static_attention;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr double e = sa::exp(1.0);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr long double e = sa::exp(1.0L);
  // [/snippet]
#endif
  return static_cast<int>(e);
}

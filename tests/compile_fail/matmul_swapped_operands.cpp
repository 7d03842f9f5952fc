// SPDX-License-Identifier: BSL-1.0
// weights (6x6) and values (2x6 by mistake): transpose(a) fits, so the hint says so.
// expect: error: static assertion failed.*requires cols\(a\) == rows\(b\)
// expect: inner_dims_match<(static_attention::)?shape<3, 2>, (static_attention::)?shape<3, 4> ?>
// expect: did you mean matmul\(transpose\(a\), b\)
#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 3, 2> a{};
  constexpr sa::matrix<float, 3, 4> b{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto c = sa::matmul(sa::transpose(a), b);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto c = sa::matmul(a, b);
  // [/snippet]
#endif
  return static_cast<int>(c(0, 0));
}

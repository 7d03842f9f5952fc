// SPDX-License-Identifier: BSL-1.0
// queries (6x2) times keys (6x2) where keys^T was meant.
// expect: error: static assertion failed.*requires cols\(a\) == rows\(b\).*did you mean matmul\(a, transpose\(b\)\)
// expect: inner_dims_match<(static_attention::)?shape<6, 2>, (static_attention::)?shape<6, 2> ?>
#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<double, 6, 2> queries{};
  constexpr sa::matrix<double, 6, 2> keys{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto scores = sa::matmul(queries, sa::transpose(keys));
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto scores = sa::matmul(queries, keys);
  // [/snippet]
#endif
  return static_cast<int>(scores(0, 0));
}

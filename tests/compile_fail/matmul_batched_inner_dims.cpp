// SPDX-License-Identifier: BSL-1.0
// Batched product whose per-item inner dimensions differ.
// expect: error: static assertion failed.*matmul\(a, b\) requires cols\(a\) == rows\(b\)
// expect: inner_dims_match<(static_attention::)?shape<6, 3>, (static_attention::)?shape<6, 3> ?>
#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::tensor<float, 2, 6, 3> batch{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto scores = sa::matmul(batch, sa::transpose(batch));
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto scores = sa::matmul(batch, batch);
  // [/snippet]
#endif
  return static_cast<int>(scores(0, 0, 0));
}

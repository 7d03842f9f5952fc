// SPDX-License-Identifier: BSL-1.0
// Batched product of a batch of 2 and a batch of 3.
// expect: error: static assertion failed.*matmul\(a, b\) on two tensors requires batch\(a\) == batch\(b\)
// expect: batch_sizes_match<(static_attention::)?batch_size<2>, (static_attention::)?batch_size<3> ?>
#include <static_attention/core/matmul.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::tensor<float, 2, 6, 3> queries{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr sa::tensor<float, 2, 3, 6> keys_t{};
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr sa::tensor<float, 3, 3, 6> keys_t{};
  // [/snippet]
#endif
  constexpr auto scores = sa::matmul(queries, keys_t);
  return static_cast<int>(scores(0, 0, 0));
}

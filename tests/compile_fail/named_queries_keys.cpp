// SPDX-License-Identifier: BSL-1.0
// queries times keys, where keys^T was meant: with N == d_out the shapes agree, the names do not.
// expect: error: static assertion failed.*matmul\(a, b\) requires cols\(a\) and rows\(b\) to be one dimension
// expect: dim_names_match<(static_attention::)?dims::d_out, (static_attention::)?dims::tokens ?>
#include <static_attention/core/named.hpp>

namespace sa = static_attention;
using namespace sa::dims;

int main() {
  constexpr auto queries = sa::name<tokens, d_out>(sa::matrix<float, 6, 6>{});
  constexpr auto keys = sa::name<tokens, d_out>(sa::matrix<float, 6, 6>{});
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto attn_scores = sa::matmul(queries, sa::transpose(keys));
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto attn_scores =
      sa::matmul(queries, keys);  // 6x6 . 6x6 fits, (tokens x d_out) . (tokens x d_out) does not
                                  // [/snippet]
#endif
  return static_cast<int>(attn_scores.value(0, 0));
}

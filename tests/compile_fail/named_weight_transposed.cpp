// SPDX-License-Identifier: BSL-1.0
// x times transpose(W_query) when d_in == d_out: the shapes fit, the names do not.
// expect: error: static assertion failed.*matmul\(a, b\) requires cols\(a\) and rows\(b\) to be one dimension
// expect: dim_names_match<(static_attention::)?dims::d_in, (static_attention::)?dims::d_out ?>
#include <static_attention/core/named.hpp>

namespace sa = static_attention;
using namespace sa::dims;

int main() {
  constexpr auto x = sa::name<tokens, d_in>(sa::matrix<float, 6, 4>{});
  constexpr auto W_query = sa::name<d_in, d_out>(sa::matrix<float, 4, 4>{});
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto queries = sa::matmul(x, W_query);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto queries = sa::matmul(x, sa::transpose(W_query));  // rows and columns of W_query mixed up
                                                                   // [/snippet]
#endif
  return static_cast<int>(queries.value(0, 0));
}

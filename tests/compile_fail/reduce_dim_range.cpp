// SPDX-License-Identifier: BSL-1.0
// sum over dim<2> of a matrix, which has dimensions 0 and 1 (or -2 and -1).
// expect: error: static assertion failed.*sum/mean/var/max/argmax\(x, dim<D>\) requires -rank\(x\) <= D < rank\(x\)
// expect: reduce_dim_fits<2,
#include <static_attention/core/reduce.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<float, 2, 6> x{};
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto s = sa::sum(x, sa::dim<-1>);
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto s = sa::sum(x, sa::dim<2>);
  // [/snippet]
#endif
  return static_cast<int>(s.elems[0]);
}

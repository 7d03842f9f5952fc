// SPDX-License-Identifier: BSL-1.0
// Helpers shared by the GPT tests: torch's references as matrices, and a relative comparison.
#pragma once

#include <cstddef>

#include <static_attention/core/matrix.hpp>

#include "reference_support.hpp"

namespace gpt_test {

/// |a - b| <= tol * max(1, |b|) for every element: relative for large values, absolute near 0.
template <class M>
constexpr bool close(const M& got, const M& expected, double tol) {
  for (std::size_t k = 0; k < M::size; ++k) {
    const double x = got.elems[k];
    const double y = expected.elems[k];
    const double d = x > y ? x - y : y - x;
    const double scale = y > 1 ? y : (y < -1 ? -y : 1);
    if (!(d <= tol * scale)) return false;
  }
  return true;
}

/// The first n ids of a reference array equal `ids`.
template <class Array, std::size_t Size>
constexpr bool same_ids(const Array& ids, const int (&expected)[Size]) {
  if (ids.size() != Size) return false;
  for (std::size_t i = 0; i < Size; ++i)
    if (static_cast<int>(ids[i]) != expected[i]) return false;
  return true;
}

}  // namespace gpt_test

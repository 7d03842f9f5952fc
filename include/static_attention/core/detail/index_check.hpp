// SPDX-License-Identifier: BSL-1.0
// Index checks: a compile error inside constant evaluation, a debug assertion at run time.
#pragma once

#include <cassert>
#include <cstddef>
#include <type_traits>

namespace static_attention::detail {

// Deliberately not constexpr: reaching it during constant evaluation stops the compiler, and the
// diagnostic names it with the shape as template arguments and the indices as call arguments.
template <std::size_t... Shape, class... Index>
void index_out_of_range_for_shape(Index...) noexcept {}

/// Checks every index against its extent in Shape. A compile error during constant evaluation,
/// assert() at run time.
template <std::size_t... Shape, class... Index>
constexpr void check_index(Index... index) noexcept {
  static_assert(sizeof...(Shape) == sizeof...(Index), "one index per dimension");
  if (!((index < Shape) && ...)) {
    if (std::is_constant_evaluated()) {
      index_out_of_range_for_shape<Shape...>(index...);
    } else {
      assert(false && "static_attention: index out of range");
    }
  }
}

}  // namespace static_attention::detail

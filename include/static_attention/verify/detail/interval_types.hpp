// SPDX-License-Identifier: BSL-1.0
// The sets verify/ bounds: interval<T> and the boxes of intervals in a matrix's and a tensor's
// shape (public through verify/interval.hpp; here so that the transfer functions need no public
// header).
#pragma once

#include <cstddef>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/verify/detail/rounding.hpp>

namespace static_attention::verify {

/// A closed interval [lo, hi] of T: every value v with lo <= v <= hi (an infinite end allowed).
template <class T>
struct interval {
  /// The lower end.
  T lo{};
  /// The upper end.
  T hi{};
  /// True if lo <= v <= hi.
  constexpr bool contains(T v) const noexcept { return lo <= v && v <= hi; }
  /// hi - lo.
  constexpr T width() const noexcept { return hi - lo; }
  /// Equality of both ends.
  friend constexpr bool operator==(const interval&, const interval&) = default;
};

/// R x C intervals, row-major: the shape of a matrix<T, R, C> whose every element lies in its
/// interval. What verify::bound returns, and the set it takes (see ball).
template <class T, std::size_t R, std::size_t C>
struct box {
  /// The element type of the ends.
  using value_type = T;
  /// Rows and columns.
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
  /// The intervals, row-major.
  interval<T> elems[R * C]{};
  /// Interval (i, j).
  constexpr interval<T>& operator()(std::size_t i, std::size_t j) noexcept { return elems[i * C + j]; }
  /// Interval (i, j), read-only.
  constexpr const interval<T>& operator()(std::size_t i, std::size_t j) const noexcept { return elems[i * C + j]; }
  /// True if every element of m lies in its interval.
  constexpr bool contains(const matrix<T, R, C>& m) const noexcept {
    for (std::size_t k = 0; k < R * C; ++k)
      if (!elems[k].contains(m.elems[k])) return false;
    return true;
  }
};

/// B boxes of N x D: the set of a tensor<T, B, N, D>.
template <class T, std::size_t B, std::size_t N, std::size_t D>
struct box_batch {
  /// Item b's box.
  box<T, N, D> items[B]{};
};

}  // namespace static_attention::verify

// SPDX-License-Identifier: BSL-1.0
// verify::interval, verify::box (a matrix of intervals) and verify::ball (the l-infinity ball).
#pragma once

#include <cstddef>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/verify/detail/interval_types.hpp>
#include <static_attention/verify/detail/rounding.hpp>

namespace static_attention::verify {

/// The l-infinity ball of radius eps around x: every matrix y with |y(i, j) - x(i, j)| <= eps, as
/// a box whose ends are rounded outward (so it holds every such y of T).
template <class T, std::size_t R, std::size_t C>
constexpr box<T, R, C> ball(const matrix<T, R, C>& x, T eps) noexcept {
  box<T, R, C> b;
  for (std::size_t k = 0; k < R * C; ++k) {
    b.elems[k].lo = detail::round_down_to<T>(static_cast<double>(x.elems[k]) - static_cast<double>(eps));
    b.elems[k].hi = detail::round_up_to<T>(static_cast<double>(x.elems[k]) + static_cast<double>(eps));
  }
  return b;
}

/// The l-infinity ball around each item of a tensor.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr box_batch<T, B, N, D> ball(const tensor<T, B, N, D>& x, T eps) noexcept {
  box_batch<T, B, N, D> out;
  for (std::size_t b = 0; b < B; ++b) out.items[b] = ball(x[b], eps);
  return out;
}

}  // namespace static_attention::verify

// SPDX-License-Identifier: BSL-1.0
// Column blocks: slicing a matrix into heads and concatenating heads back, by compile-time offsets.
#pragma once

#include <cstddef>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// Columns [Offset, Offset + Count) of m, as `m[:, Offset:Offset + Count]`.
template <std::size_t Offset, std::size_t Count, class T, std::size_t R, std::size_t C>
constexpr matrix<T, R, Count> slice_cols(const matrix<T, R, C>& m) noexcept {
  static_assert(Offset + Count <= C, "slice_cols<Offset, Count>(m) requires Offset + Count <= cols(m)");
  matrix<T, R, Count> out;
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < Count; ++j) out.elems[i * Count + j] = m.elems[i * C + Offset + j];
  return out;
}

/// Writes block into columns [Offset, Offset + cols(block)) of m.
template <std::size_t Offset, class T, std::size_t R, std::size_t C, std::size_t Count>
constexpr void assign_cols(matrix<T, R, C>& m, const matrix<T, R, Count>& block) noexcept {
  static_assert(Offset + Count <= C, "assign_cols<Offset>(m, block) requires Offset + cols(block) <= cols(m)");
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < Count; ++j) m.elems[i * C + Offset + j] = block.elems[i * Count + j];
}

/// Concatenates along the last dimension, as `torch.cat([a, b, ...], dim=-1)`.
template <class T, std::size_t R, std::size_t C, std::size_t... Cs>
constexpr matrix<T, R, (C + ... + Cs)> concat(const matrix<T, R, C>& first, const matrix<T, R, Cs>&... rest) noexcept {
  matrix<T, R, (C + ... + Cs)> out;
  assign_cols<0>(out, first);
  if constexpr (sizeof...(Cs) > 0) assign_cols<C>(out, concat(rest...));
  return out;
}

/// Concatenates batches along the last dimension, as `torch.cat([a, b, ...], dim=-1)`.
template <class T, std::size_t B, std::size_t N, std::size_t D, std::size_t... Ds>
constexpr tensor<T, B, N, (D + ... + Ds)> concat(const tensor<T, B, N, D>& first,
                                                 const tensor<T, B, N, Ds>&... rest) noexcept {
  tensor<T, B, N, (D + ... + Ds)> out;
  for (std::size_t b = 0; b < B; ++b) set_item(out, b, concat(first[b], rest[b]...));
  return out;
}

}  // namespace static_attention

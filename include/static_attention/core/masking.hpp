// SPDX-License-Identifier: BSL-1.0
// Masks: the causal mask that hides the future, and the chapter's tril/masked_fill vocabulary.
#pragma once

#include <cstddef>
#include <limits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// The lower triangle including the diagonal, zeros above: `torch.tril(m)`.
template <class T, std::size_t R, std::size_t C>
constexpr matrix<T, R, C> tril(const matrix<T, R, C>& m) noexcept {
  matrix<T, R, C> out;
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j <= i && j < C; ++j) out.elems[i * C + j] = m.elems[i * C + j];
  return out;
}

/// True strictly above the diagonal: the positions a causal model must not see,
/// `torch.triu(torch.ones(N, N), diagonal=1).bool()`.
template <std::size_t N>
constexpr matrix<bool, N, N> causal_mask() noexcept {
  matrix<bool, N, N> mask;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = i + 1; j < N; ++j) mask.elems[i * N + j] = true;
  return mask;
}

/// m with every position where mask is true replaced by value: `m.masked_fill(mask, value)`.
template <class T, std::size_t R, std::size_t C>
constexpr matrix<T, R, C> masked_fill(const matrix<T, R, C>& m, const matrix<bool, R, C>& mask, T value) noexcept {
  matrix<T, R, C> out = m;
  for (std::size_t k = 0; k < R * C; ++k)
    if (mask.elems[k]) out.elems[k] = value;
  return out;
}

/// Scores with the future hidden: -inf strictly above the diagonal, so that softmax gives
/// those positions exactly 0.
template <class T, std::size_t N>
constexpr matrix<T, N, N> mask_future(const matrix<T, N, N>& scores) noexcept {
  static_assert(is_floating_element<T>, "mask_future(scores) requires a floating-point element type");
  return masked_fill(scores, causal_mask<N>(), -std::numeric_limits<T>::infinity());
}

/// mask_future for every batch item.
template <class T, std::size_t B, std::size_t N>
constexpr tensor<T, B, N, N> mask_future(const tensor<T, B, N, N>& scores) noexcept {
  tensor<T, B, N, N> out;
  for (std::size_t b = 0; b < B; ++b) set_item(out, b, mask_future(scores[b]));
  return out;
}

}  // namespace static_attention

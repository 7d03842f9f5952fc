// SPDX-License-Identifier: BSL-1.0
// feed_forward<T, D, Hidden>: the book's FeedForward, Linear(D, Hidden), GELU, Linear(Hidden, D).
#pragma once

#include <cstddef>

#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/linear_layer.hpp>

namespace static_attention {

/// The book's FeedForward: expand to Hidden features (the book's 4 x emb_dim), GELU, and
/// project back: `layers[2](gelu(layers[0](x)))`. Both layers have biases.
template <class T, std::size_t D, std::size_t Hidden>
struct feed_forward {
  /// The element type.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = D;
  static constexpr std::size_t out_features = D;
  /// The longest sequence it takes: any.
  static constexpr std::size_t max_tokens = no_context_limit;

  /// `layers[0]`: D -> Hidden.
  linear_layer<T, D, Hidden> expand;
  /// `layers[2]`: Hidden -> D.
  linear_layer<T, Hidden, D> project;

  /// N x D -> N x D.
  template <class U, std::size_t N, std::size_t C>
  constexpr matrix<T, N, D> operator()(const matrix<U, N, C>& x) const noexcept {
    matrix<T, N, Hidden> h = expand(x);
    detail::gelu_in_place(h.elems, h.size);  // in place: one N x Hidden buffer
    return project(h);
  }

  /// Each batch item.
  template <class U, std::size_t B, std::size_t N, std::size_t C>
  constexpr tensor<T, B, N, D> operator()(const tensor<U, B, N, C>& x) const noexcept {
    return detail::per_item(x, *this);
  }
};

}  // namespace static_attention

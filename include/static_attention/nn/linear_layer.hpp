// SPDX-License-Identifier: BSL-1.0
// linear_layer: y = x W + b, PyTorch's nn.Linear, for building models around attention.
#pragma once

#include <cstddef>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>

namespace static_attention {

/// An affine layer, in_features -> out_features: y = x W + b, with W in the x @ W layout
/// (in_features x out_features). from_linear takes nn.Linear's out x in weight.
template <class T, std::size_t in_features_, std::size_t out_features_>
struct linear_layer {
  /// The element type of the weights, the inputs and the outputs.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = in_features_;
  static constexpr std::size_t out_features = out_features_;

  static_assert(detail::check_attention_element<T>());

  matrix<T, in_features_, out_features_> weight;
  matrix<T, 1, out_features_> bias;

  /// From nn.Linear's weight (out x in) and bias (1 x out).
  template <class U, std::size_t R, std::size_t C, std::size_t BR, std::size_t BC>
  static constexpr linear_layer from_linear(const matrix<U, R, C>& w, const matrix<U, BR, BC>& b) noexcept {
    return {detail::linear_weight_as_xw<T, in_features_, out_features_>(w), detail::bias_row<T, out_features_>(b)};
  }

  /// x W + b for one sequence: N x in -> N x out.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<T, N, out_features_> operator()(const matrix<U, N, D>& x) const noexcept {
    matrix<T, N, out_features_> y;
    if constexpr (detail::input_fits<T, in_features_, no_context_limit, U, N, D>()) {
      y = matmul(x, weight);
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < out_features_; ++j) y.elems[i * out_features_ + j] += bias.elems[j];
    }
    return y;
  }

  /// x W + b for a batch.
  template <class U, std::size_t B, std::size_t N, std::size_t D>
  constexpr tensor<T, B, N, out_features_> operator()(const tensor<U, B, N, D>& x) const noexcept {
    return detail::per_item(x, *this);
  }
};

/// `linear_layer layer{W, b}` deduces T, in_features and out_features from W (in x out, the
/// x @ W layout); b is then the 1 x out bias.
template <class T, std::size_t In, std::size_t Out, class... Rest>
linear_layer(const matrix<T, In, Out>&, const Rest&...) -> linear_layer<T, In, Out>;

}  // namespace static_attention

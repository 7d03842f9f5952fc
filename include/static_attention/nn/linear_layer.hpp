// SPDX-License-Identifier: BSL-1.0
// linear_layer: y = x W + b, PyTorch's nn.Linear, for building models around attention; with
// bias = false, y = x W (nn.Linear(..., bias=False)).
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>

namespace static_attention {

/// A linear layer's bias is given exactly when the layer has one: nn.Linear(in, out) takes a
/// weight and a bias, nn.Linear(in, out, bias=False) a weight alone.
/// `linear_bias_given_matches<false, true>` (a bias for a bias-free layer) is false.
template <bool HasBias, bool BiasGiven>
concept linear_bias_given_matches = HasBias == BiasGiven;

namespace detail {
/// The bias of a linear_layer declared without one: nothing (an empty member).
struct no_bias {
  friend constexpr bool operator==(no_bias, no_bias) noexcept = default;
};

// The rule as a function of its own, so that the diagnostic shows the layer's shape.
template <std::size_t In, std::size_t Out, bool HasBias, bool BiasGiven>
constexpr void check_linear_bias_given() noexcept {
  static_assert(linear_bias_given_matches<HasBias, BiasGiven>,
                "linear_layer<T, in, out, bias>::from_linear(...) requires a bias exactly when the layer has one "
                "(linear_bias_given_matches<has_bias, bias given>): from_linear(w, b) for nn.Linear(in, out), "
                "from_linear(w) for nn.Linear(in, out, bias=False)");
}
}  // namespace detail

/// An affine layer, in_features -> out_features: y = x W + b, with W in the x @ W layout
/// (in_features x out_features). from_linear takes nn.Linear's out x in weight. With
/// `bias_ = false` (torch's `bias=False`) it is y = x W: `bias` is then an empty member, and
/// init_like_torch draws the weight alone, as torch does.
template <class T, std::size_t in_features_, std::size_t out_features_, bool bias_ = true>
struct linear_layer {
  /// The element type of the weights, the inputs and the outputs.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = in_features_;
  static constexpr std::size_t out_features = out_features_;
  /// Whether the layer adds a bias (nn.Linear's `bias` argument).
  static constexpr bool has_bias = bias_;

  static_assert(detail::check_attention_element<T>());

  /// The weight, in_features x out_features (x @ W).
  matrix<T, in_features_, out_features_> weight;
  /// The bias row, 1 x out_features; with bias_ = false, detail::no_bias (holds nothing).
  [[no_unique_address]] std::conditional_t<bias_, matrix<T, 1, out_features_>, detail::no_bias> bias;

  /// From nn.Linear's weight (out x in) and bias (1 x out). A bias-free layer does not take one.
  template <class U, std::size_t R, std::size_t C, std::size_t BR, std::size_t BC>
  static constexpr linear_layer from_linear(const matrix<U, R, C>& w, const matrix<U, BR, BC>& b) noexcept {
    detail::check_linear_bias_given<in_features_, out_features_, bias_, true>();
    if constexpr (bias_)
      return {detail::linear_weight_as_xw<T, in_features_, out_features_>(w), detail::bias_row<T, out_features_>(b)};
    else
      return {};
  }

  /// From the weight (out x in) of nn.Linear(in, out, bias=False). A layer with a bias needs one.
  template <class U, std::size_t R, std::size_t C>
  static constexpr linear_layer from_linear(const matrix<U, R, C>& w) noexcept {
    detail::check_linear_bias_given<in_features_, out_features_, bias_, false>();
    return {detail::linear_weight_as_xw<T, in_features_, out_features_>(w), {}};
  }

  /// x W + b (x W without a bias) for one sequence: N x in -> N x out.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<T, N, out_features_> operator()(const matrix<U, N, D>& x) const noexcept {
    matrix<T, N, out_features_> y;
    if constexpr (detail::input_fits<T, in_features_, no_context_limit, U, N, D>()) {
      y = matmul(x, weight);
      if constexpr (bias_)
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t j = 0; j < out_features_; ++j) y.elems[i * out_features_ + j] += bias.elems[j];
    }
    return y;
  }

  /// The same for a batch.
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

// SPDX-License-Identifier: BSL-1.0
// Scaled dot-product self-attention with trainable weights (the chapter's SelfAttention_v1/v2).
#pragma once

#include <cstddef>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>
#include <static_attention/nn/detail/attention_core.hpp>

namespace static_attention {

// Constructor parameters are named init_*: GCC's -Wshadow flags a class template's constructor
// parameters that share a name with a global of the user's (w_query, say).

/// Self-attention: Q = x W_query, K = x W_key, V = x W_value, then
/// context = softmax(Q K^T / sqrt(d_out)) V, for N tokens of d_in features -> N x d_out.
///
/// Weights are stored in the x @ W layout (d_in x d_out), as SelfAttention_v1's parameters;
/// from_linear takes nn.Linear's d_out x d_in weights, as SelfAttention_v2's.
template <class T, std::size_t d_in, std::size_t d_out>
struct self_attention {
  static_assert(detail::check_attention_element<T>());

  /// The element type of the weights, the inputs and the outputs.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = d_in;
  static constexpr std::size_t out_features = d_out;

  matrix<T, d_in, d_out> W_query;
  matrix<T, d_in, d_out> W_key;
  matrix<T, d_in, d_out> W_value;

  /// Zero weights.
  constexpr self_attention() noexcept = default;

  /// From d_in x d_out weights (x @ W).
  template <class U, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, std::size_t R3, std::size_t C3>
  constexpr self_attention(const matrix<U, R1, C1>& init_query, const matrix<U, R2, C2>& init_key,
                           const matrix<U, R3, C3>& init_value) noexcept
      : W_query(detail::xw_weight<T, d_in, d_out>(init_query)),
        W_key(detail::xw_weight<T, d_in, d_out>(init_key)),
        W_value(detail::xw_weight<T, d_in, d_out>(init_value)) {}

  /// From nn.Linear weights, d_out x d_in (x @ W.T), in query, key, value order.
  template <class U, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, std::size_t R3, std::size_t C3>
  static constexpr self_attention from_linear(const matrix<U, R1, C1>& init_query, const matrix<U, R2, C2>& init_key,
                                              const matrix<U, R3, C3>& init_value) noexcept {
    return {detail::linear_weight_as_xw<T, d_in, d_out>(init_query),
            detail::linear_weight_as_xw<T, d_in, d_out>(init_key),
            detail::linear_weight_as_xw<T, d_in, d_out>(init_value)};
  }

  /// Attention weights softmax(Q K^T / sqrt(d_out)) for one sequence: N x N.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<T, N, N> attention_weights(const matrix<U, N, D>& x) const noexcept {
    if constexpr (detail::input_fits<T, d_in, no_context_limit, U, N, D>())
      return detail::attn_weights<false>(matmul(x, W_query), matmul(x, W_key));
    else
      return {};
  }

  /// Context vectors for one sequence: N x d_in -> N x d_out.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<T, N, d_out> operator()(const matrix<U, N, D>& x) const noexcept {
    if constexpr (detail::input_fits<T, d_in, no_context_limit, U, N, D>())
      return detail::attend<false>(matmul(x, W_query), matmul(x, W_key), matmul(x, W_value), detail::no_dropout{});
    else
      return {};
  }

  /// Context vectors for a batch: B x N x d_in -> B x N x d_out.
  template <class U, std::size_t B, std::size_t N, std::size_t D>
  constexpr tensor<T, B, N, d_out> operator()(const tensor<U, B, N, D>& x) const noexcept {
    return detail::per_item(x, *this);
  }
};

/// `self_attention att{W_query, W_key, W_value}` deduces T, d_in and d_out from the first weight
/// (d_in x d_out, the x @ W layout); the constructor checks the others against them.
template <class T, std::size_t DIn, std::size_t DOut, class... Rest>
self_attention(const matrix<T, DIn, DOut>&, const Rest&...) -> self_attention<T, DIn, DOut>;

}  // namespace static_attention

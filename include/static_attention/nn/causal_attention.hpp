// SPDX-License-Identifier: BSL-1.0
// Causal attention (the chapter's CausalAttention): self-attention that cannot see the future.
#pragma once

#include <cstddef>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>
#include <static_attention/nn/detail/attention_core.hpp>
#include <static_attention/nn/detail/cached_attention.hpp>

namespace static_attention {

// Constructor parameters are named init_*: GCC's -Wshadow flags a class template's constructor
// parameters that share a name with a global of the user's (w_query, say).

/// Causal self-attention: scores strictly above the diagonal are set to -inf before the
/// softmax, so token i attends only to tokens 0..i. Dropout on the attention weights, with
/// probability dropout_p, applies only in training mode, `ca(x, gen)`; `ca(x)` is evaluation
/// mode. With a context_length, longer sequences are refused at compile time.
template <class T, std::size_t d_in, std::size_t d_out, std::size_t context_length = no_context_limit>
struct causal_attention : detail::attention_calls<causal_attention<T, d_in, d_out, context_length>, T, d_out> {
  static_assert(detail::check_attention_element<T>());

  /// The element type of the weights, the inputs and the outputs.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = d_in;
  static constexpr std::size_t out_features = d_out;
  /// The longest sequence it takes (its context_length), for the same folds.
  static constexpr std::size_t max_tokens = context_length;

  matrix<T, d_in, d_out> W_query;
  matrix<T, d_in, d_out> W_key;
  matrix<T, d_in, d_out> W_value;
  /// Probability of dropping an attention weight in training mode.
  T dropout_p{};

  /// Zero weights.
  constexpr causal_attention() noexcept = default;

  /// From d_in x d_out weights (x @ W).
  template <class U, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, std::size_t R3, std::size_t C3>
  constexpr causal_attention(const matrix<U, R1, C1>& init_query, const matrix<U, R2, C2>& init_key,
                             const matrix<U, R3, C3>& init_value, T init_dropout = T{}) noexcept
      : W_query(detail::xw_weight<T, d_in, d_out>(init_query)),
        W_key(detail::xw_weight<T, d_in, d_out>(init_key)),
        W_value(detail::xw_weight<T, d_in, d_out>(init_value)),
        dropout_p(detail::checked_dropout_p(init_dropout)) {}

  /// From nn.Linear weights, d_out x d_in (x @ W.T), in query, key, value order.
  template <class U, std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, std::size_t R3, std::size_t C3>
  static constexpr causal_attention from_linear(const matrix<U, R1, C1>& init_query, const matrix<U, R2, C2>& init_key,
                                                const matrix<U, R3, C3>& init_value, T init_dropout = T{}) noexcept {
    return {detail::linear_weight_as_xw<T, d_in, d_out>(init_query),
            detail::linear_weight_as_xw<T, d_in, d_out>(init_key),
            detail::linear_weight_as_xw<T, d_in, d_out>(init_value), init_dropout};
  }

  /// Masked attention weights for one sequence: N x N, zero above the diagonal.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<T, N, N> attention_weights(const matrix<U, N, D>& x) const noexcept {
    if constexpr (detail::input_fits<T, d_in, context_length, U, N, D>())
      return detail::attn_weights<true>(matmul(x, W_query), matmul(x, W_key));
    else
      return {};
  }

 private:
  friend detail::attention_calls<causal_attention<T, d_in, d_out, context_length>, T, d_out>;
  template <class U, std::size_t N, std::size_t D, class Drop>
  constexpr matrix<T, N, d_out> forward(const matrix<U, N, D>& x, const Drop& drop) const noexcept {
    constexpr std::size_t bytes = sizeof(T) * (6 * N * d_out + N);  // Q, K, V, K^T, context, result
    detail::check_stack<bytes, detail::instead_attend_into_att_x_out_cache>();
    if constexpr (detail::input_fits<T, d_in, context_length, U, N, D>() && stack_use_within<bytes, stack_limit>)
      return detail::causal_heads<1>(matmul(x, W_query), matmul(x, W_key), matmul(x, W_value), drop);
    else
      return {};
  }
};

/// `causal_attention ca{W_query, W_key, W_value}` (or with a dropout probability after them)
/// deduces T, d_in and d_out from the first weight, with no context length.
template <class T, std::size_t DIn, std::size_t DOut, class... Rest>
causal_attention(const matrix<T, DIn, DOut>&, const Rest&...) -> causal_attention<T, DIn, DOut>;

}  // namespace static_attention

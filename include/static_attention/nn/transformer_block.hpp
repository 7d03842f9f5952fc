// SPDX-License-Identifier: BSL-1.0
// transformer_block: the book's TransformerBlock, pre-LayerNorm with shortcut connections.
#pragma once

#include <cstddef>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/dropout.hpp>
#include <static_attention/nn/feed_forward.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/nn/multi_head_attention.hpp>

namespace static_attention {

/// The book's TransformerBlock for emb_dim D: causal multi-head attention and a feed-forward
/// block of 4 D hidden features, each behind a LayerNorm and around a shortcut:
/// `x = x + drop(att(norm1(x)))`, then `x = x + drop(ff(norm2(x)))`.
///
/// Evaluation mode by default; `block(x, gen)` is training mode, with dropout of probability
/// `drop_rate` on each shortcut branch and `att.dropout_p` on the attention weights, drawn from
/// gen in the order att, first shortcut, ff, second shortcut (for a batch, each over the whole
/// batch, as torch draws).
template <class T, std::size_t D, std::size_t NumHeads, std::size_t ContextLength = no_context_limit,
          bool QkvBias = false>
struct transformer_block {
  /// The element type.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = D;
  static constexpr std::size_t out_features = D;
  /// The longest sequence it takes.
  static constexpr std::size_t max_tokens = ContextLength;

  /// `att`: MultiHeadAttention(D, D, context_length, dropout, num_heads, qkv_bias).
  multi_head_attention<T, D, D, NumHeads, ContextLength, QkvBias> att;
  /// `ff`: FeedForward, D -> 4 D -> D.
  feed_forward<T, D, 4 * D> ff;
  /// `norm1`, before the attention.
  layer_norm<T, D> norm1;
  /// `norm2`, before the feed-forward block.
  layer_norm<T, D> norm2;
  /// `drop_shortcut`'s probability (training mode only).
  T drop_rate{};

  /// Bytes one call on N tokens holds on the stack at once: about a dozen N x D activations.
  template <std::size_t N>
  static constexpr std::size_t stack_bytes = sizeof(T) * (12 * N * D + N);

  /// Evaluation mode: N x D -> N x D.
  template <class U, std::size_t N, std::size_t C>
  constexpr matrix<T, N, D> operator()(const matrix<U, N, C>& x) const noexcept {
    detail::check_stack<stack_bytes<N>, detail::instead_gpt_model_hidden_ids_workspace>();
    if constexpr (stack_use_within<stack_bytes<N>, stack_limit>) {  // else the one error above, not one per layer
      const matrix<T, N, D> h = x + att(norm1(x));
      return h + ff(norm2(h));
    } else {
      return {};
    }
  }

  /// Training mode: dropout drawn from gen.
  template <class U, std::size_t N, std::size_t C, random_source G>
  constexpr matrix<T, N, D> operator()(const matrix<U, N, C>& x, G& gen) const noexcept {
    detail::check_stack<stack_bytes<N>, detail::instead_gpt_model_hidden_ids_workspace>();
    if constexpr (stack_use_within<stack_bytes<N>, stack_limit>) {
      const matrix<T, N, D> h = x + dropout(att(norm1(x), gen), drop_rate, gen);
      return h + dropout(ff(norm2(h)), drop_rate, gen);
    } else {
      return {};
    }
  }

  /// Evaluation mode for a batch: B x N x D -> B x N x D.
  template <class U, std::size_t B, std::size_t N, std::size_t C>
  constexpr tensor<T, B, N, D> operator()(const tensor<U, B, N, C>& x) const noexcept {
    return detail::per_item(x, *this);
  }

  /// Training mode for a batch, drawing from gen as torch draws for the (B, N, D) batch: each
  /// dropout over the whole batch, in row-major order. So the attention weights of every item
  /// (item by item, head by head, row by row), then the first shortcut's B x N x D, then the
  /// second's; not the order of B single-sequence calls.
  template <class U, std::size_t B, std::size_t N, std::size_t C, random_source G>
  constexpr tensor<T, B, N, D> operator()(const tensor<U, B, N, C>& x, G& gen) const noexcept {
    constexpr std::size_t bytes = stack_bytes<N> + 3 * sizeof(T) * B * N * D;
    detail::check_stack<bytes, detail::instead_gpt_model_hidden_ids_workspace>();
    tensor<T, B, N, D> branch;
    if constexpr (stack_use_within<bytes, stack_limit>) {
      for (std::size_t b = 0; b < B; ++b) set_item(branch, b, att(norm1(x[b]), gen));
      const tensor<T, B, N, D> h = x + dropout(branch, drop_rate, gen);
      for (std::size_t b = 0; b < B; ++b) set_item(branch, b, ff(norm2(h[b])));
      return h + dropout(branch, drop_rate, gen);
    } else {
      return branch;
    }
  }
};

}  // namespace static_attention

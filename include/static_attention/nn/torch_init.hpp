// SPDX-License-Identifier: BSL-1.0
// init_like_torch: each chapter-4 module filled in place as PyTorch initialises it after
// torch.manual_seed, drawing from a torch_generator in PyTorch's module-creation order.
// In place, so that a model in static storage (GPT-2 124M is about 650 MB) is never copied.
#pragma once

#include <cstddef>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/feed_forward.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/nn/transformer_block.hpp>

namespace static_attention {

namespace detail {
// nn.Linear(In, Out)'s weight drawn in PyTorch's order (out x in, row-major) into the
// x @ W layout (in x out), then, when given, its bias: the bounds of linear_weight/linear_bias.
template <torch_real T, std::size_t In, std::size_t Out>
constexpr void init_linear_xw(matrix<T, In, Out>& weight, matrix<T, 1, Out>* bias, torch_generator& gen) noexcept {
  const double bound = linear_weight_bound(In);
  const auto lo = static_cast<T>(-bound);
  const auto hi = static_cast<T>(bound);
  // Torch's rows (one per output) are drawn a few at a time into a buffer and written as
  // columns: contiguous runs instead of one scattered store per draw (GPT-2's out_head has
  // 50257 columns). The buffer stays within 64 KiB of stack.
  constexpr std::size_t fit = 64 * 1024 / (In * sizeof(T));
  constexpr std::size_t rows = fit < 1 ? 1 : (fit > 16 ? 16 : fit);
  T drawn[rows * In]{};
  for (std::size_t o0 = 0; o0 < Out; o0 += rows) {
    const std::size_t count = Out - o0 < rows ? Out - o0 : rows;
    for (std::size_t k = 0; k < count * In; ++k) drawn[k] = uniform(gen, lo, hi);
    for (std::size_t i = 0; i < In; ++i)
      for (std::size_t r = 0; r < count; ++r) weight.elems[i * Out + o0 + r] = drawn[r * In + i];
  }
  if (bias != nullptr) {
    const double bias_bound = linear_bias_bound(In);
    for (auto& b : bias->elems) b = uniform(gen, static_cast<T>(-bias_bound), static_cast<T>(bias_bound));
  }
}

// The draws of nn.Linear(In, Out, bias=False)'s weight, taken and discarded: what a module whose
// weight is then replaced by another's (weight tying) leaves the generator at.
template <torch_real T, std::size_t In, std::size_t Out>
constexpr void skip_linear_weight_draws(torch_generator& gen) noexcept {
  const double bound = linear_weight_bound(In);
  const auto lo = static_cast<T>(-bound);
  const auto hi = static_cast<T>(bound);
  for (std::size_t k = 0; k < In * Out; ++k) (void)uniform(gen, lo, hi);
}
}  // namespace detail

/// nn.Embedding: `weight.normal_(0, 1)`.
template <torch_real T, std::size_t Vocab, std::size_t D>
constexpr void init_like_torch(embedding<T, Vocab, D>& layer, torch_generator& gen) noexcept {
  normal_(layer.weight, gen);
}

/// LayerNorm: scale ones, shift zeros (no draws; the generator is not touched).
template <torch_real T, std::size_t D>
constexpr void init_like_torch(layer_norm<T, D>& layer, torch_generator&) noexcept {
  layer.scale = ones<T, 1, D>();
  layer.shift = zeros<T, 1, D>();
}

/// nn.Linear(In, Out): the weight, then the bias; nn.Linear(In, Out, bias=False)
/// (`linear_layer<T, In, Out, false>`): the weight alone, as torch draws it.
template <torch_real T, std::size_t In, std::size_t Out, bool Bias>
constexpr void init_like_torch(linear_layer<T, In, Out, Bias>& layer, torch_generator& gen) noexcept {
  if constexpr (Bias)
    detail::init_linear_xw(layer.weight, &layer.bias, gen);
  else
    detail::init_linear_xw<T, In, Out>(layer.weight, nullptr, gen);
}

/// MultiHeadAttention: W_query, W_key, W_value (each with its bias when qkv_bias), then
/// out_proj's weight and bias, as the module creates them.
template <torch_real T, std::size_t DIn, std::size_t DOut, std::size_t Heads, std::size_t Ctx, bool QkvBias>
constexpr void init_like_torch(multi_head_attention<T, DIn, DOut, Heads, Ctx, QkvBias>& layer,
                               torch_generator& gen) noexcept {
  if constexpr (QkvBias) {
    detail::init_linear_xw(layer.W_query, &layer.b_query, gen);
    detail::init_linear_xw(layer.W_key, &layer.b_key, gen);
    detail::init_linear_xw(layer.W_value, &layer.b_value, gen);
  } else {
    detail::init_linear_xw<T, DIn, DOut>(layer.W_query, nullptr, gen);
    detail::init_linear_xw<T, DIn, DOut>(layer.W_key, nullptr, gen);
    detail::init_linear_xw<T, DIn, DOut>(layer.W_value, nullptr, gen);
  }
  detail::init_linear_xw(layer.W_out, &layer.b_out, gen);
}

/// FeedForward: layers[0], then layers[2].
template <torch_real T, std::size_t D, std::size_t Hidden>
constexpr void init_like_torch(feed_forward<T, D, Hidden>& layer, torch_generator& gen) noexcept {
  init_like_torch(layer.expand, gen);
  init_like_torch(layer.project, gen);
}

/// TransformerBlock: att, ff, norm1, norm2 (the norms draw nothing).
template <torch_real T, std::size_t D, std::size_t Heads, std::size_t Ctx, bool QkvBias>
constexpr void init_like_torch(transformer_block<T, D, Heads, Ctx, QkvBias>& block, torch_generator& gen) noexcept {
  init_like_torch(block.att, gen);
  init_like_torch(block.ff, gen);
  init_like_torch(block.norm1, gen);
  init_like_torch(block.norm2, gen);
}

}  // namespace static_attention

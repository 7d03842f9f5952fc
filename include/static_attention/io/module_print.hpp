// SPDX-License-Identifier: BSL-1.0
// Modules as PyTorch shows them: `std::cout << block` prints the repr tree `print(block)` gives
// for the book's classes (TransformerBlock, MultiHeadAttention, FeedForward, LayerNorm, nn.Linear),
// and parameter_count(m) is `sum(p.numel() for p in m.parameters())`.
//
//   TransformerBlock(
//     (att): MultiHeadAttention(
//       (W_query): Linear(in_features=768, out_features=768, bias=False)
//   ...
//
// The names are the book's: the library's feed_forward prints as FeedForward with its
// `(layers): Sequential(Linear, GELU, Linear)`, its multi_head_attention as MultiHeadAttention
// with `W_query` ... `out_proj` and `dropout`. A dropout probability prints as Python prints the
// float it holds (shortest round trip: 0.1f is `0.1`).
#pragma once

#include <array>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/feed_forward.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/nn/self_attention.hpp>
#include <static_attention/nn/transformer_block.hpp>

namespace static_attention {

namespace detail {

// One module of the tree: torch's Module.__repr__ from its name, its extra_repr and its children.
struct module_repr {
  std::string name;
  std::string extra{};
  std::vector<std::pair<std::string, std::string>> children{};

  // torch.nn.modules.module._addindent(s, 2) of every child, then the lines joined.
  std::string str() const {
    std::string s = name + "(";
    if (children.empty()) return s + extra + ")";
    std::vector<std::string> lines;
    if (!extra.empty()) lines.push_back(extra);
    for (const auto& [key, text] : children) {
      std::string indented;
      for (const char ch : text) {
        indented += ch;
        if (ch == '\n') indented += "  ";
      }
      lines.push_back("(" + key + "): " + indented);
    }
    for (const auto& line : lines) s += "\n  " + line;
    return s + "\n)";
  }
};

inline std::string linear_repr(std::size_t in, std::size_t out, bool bias) {
  return "Linear(in_features=" + std::to_string(in) + ", out_features=" + std::to_string(out) +
         ", bias=" + (bias ? "True" : "False") + ")";
}

// Python's repr of the float p holds.
template <class T>
std::string dropout_repr(T p) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), p);
  std::string s(buf.data(), r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return "Dropout(p=" + s + ", inplace=False)";
}

}  // namespace detail

/// `print(nn.Linear(in, out, bias=...))`: `Linear(in_features=5, out_features=6, bias=True)`.
template <class T, std::size_t In, std::size_t Out, bool Bias>
std::string to_string(const linear_layer<T, In, Out, Bias>&) {
  return detail::linear_repr(In, Out, Bias);
}
/// `print(nn.Embedding(num, dim))`: `Embedding(10, 8)`.
template <class T, std::size_t V, std::size_t D>
std::string to_string(const embedding<T, V, D>&) {
  return "Embedding(" + std::to_string(V) + ", " + std::to_string(D) + ")";
}
/// `print(LayerNorm(emb_dim))`: the book's LayerNorm has no extra_repr, so `LayerNorm()`.
template <class T, std::size_t D>
std::string to_string(const layer_norm<T, D>&) {
  return "LayerNorm()";
}
/// `print(FeedForward(cfg))`: Sequential(Linear, GELU, Linear) under `layers`.
template <class T, std::size_t D, std::size_t Hidden>
std::string to_string(const feed_forward<T, D, Hidden>&) {
  const detail::module_repr layers{
      "Sequential",
      {},
      {{"0", detail::linear_repr(D, Hidden, true)}, {"1", "GELU()"}, {"2", detail::linear_repr(Hidden, D, true)}}};
  return detail::module_repr{"FeedForward", {}, {{"layers", layers.str()}}}.str();
}
/// `print(MultiHeadAttention(...))`, the book's class: the projections, out_proj and dropout.
template <class T, std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length,
          bool qkv_bias>
std::string to_string(const multi_head_attention<T, d_in, d_out, num_heads, context_length, qkv_bias>& m) {
  return detail::module_repr{"MultiHeadAttention",
                             {},
                             {{"W_query", detail::linear_repr(d_in, d_out, qkv_bias)},
                              {"W_key", detail::linear_repr(d_in, d_out, qkv_bias)},
                              {"W_value", detail::linear_repr(d_in, d_out, qkv_bias)},
                              {"out_proj", detail::linear_repr(d_out, d_out, true)},
                              {"dropout", detail::dropout_repr(m.dropout_p)}}}
      .str();
}
/// `print(TransformerBlock(cfg))`, the book's class.
template <class T, std::size_t D, std::size_t NumHeads, std::size_t ContextLength, bool QkvBias>
std::string to_string(const transformer_block<T, D, NumHeads, ContextLength, QkvBias>& b) {
  return detail::module_repr{"TransformerBlock",
                             {},
                             {{"att", to_string(b.att)},
                              {"ff", to_string(b.ff)},
                              {"norm1", to_string(b.norm1)},
                              {"norm2", to_string(b.norm2)},
                              {"drop_shortcut", detail::dropout_repr(b.drop_rate)}}}
      .str();
}

/// `print(GPTModel(cfg))`, the book's class, as torch 1.13 prints it (every block of trf_blocks
/// in full; a tied out_head prints as the Linear it shares its weight with).
template <class T, gpt_config Cfg>
std::string to_string(const gpt_model<T, Cfg>& m) {
  detail::module_repr blocks{"Sequential"};
  for (std::size_t i = 0; i < Cfg.n_layers; ++i)
    blocks.children.push_back({std::to_string(i), to_string(m.trf_blocks[i])});
  return detail::module_repr{"GPTModel",
                             {},
                             {{"tok_emb", to_string(m.tok_emb)},
                              {"pos_emb", to_string(m.pos_emb)},
                              {"drop_emb", detail::dropout_repr(m.drop_rate)},
                              {"trf_blocks", blocks.str()},
                              {"final_norm", to_string(m.final_norm)},
                              {"out_head", detail::linear_repr(Cfg.emb_dim, Cfg.vocab_size, false)}}}
      .str();
}

namespace detail {
template <class M>
concept printable_module = requires(const M& m) {
  { static_attention::to_string(m) } -> std::same_as<std::string>;
}
&&!requires { M::size; };
}  // namespace detail

/// Prints a module's repr tree, as `print(module)` does.
template <detail::printable_module M>
std::ostream& operator<<(std::ostream& os, const M& m) {
  return os << to_string(m);
}

/// `sum(p.numel() for p in module.parameters())` for the type M, with no object (a GPT-2
/// block need not be built to count it): linear_layer, layer_norm, embedding, feed_forward,
/// self_attention, multi_head_attention, transformer_block, and gpt_model (its own count).
template <class M>
constexpr std::size_t parameter_count() noexcept;

namespace detail {
template <class M>
struct parameter_counter;
template <class T, std::size_t In, std::size_t Out, bool Bias>
struct parameter_counter<linear_layer<T, In, Out, Bias>> {
  static constexpr std::size_t value = In * Out + (Bias ? Out : 0);
};
template <class T, std::size_t D>
struct parameter_counter<layer_norm<T, D>> {
  static constexpr std::size_t value = 2 * D;
};
template <class T, std::size_t V, std::size_t D>
struct parameter_counter<embedding<T, V, D>> {
  static constexpr std::size_t value = V * D;
};
template <class T, std::size_t D, std::size_t Hidden>
struct parameter_counter<feed_forward<T, D, Hidden>> {
  static constexpr std::size_t value = (D * Hidden + Hidden) + (Hidden * D + D);
};
template <class T, std::size_t d_in, std::size_t d_out>
struct parameter_counter<self_attention<T, d_in, d_out>> {
  static constexpr std::size_t value = 3 * d_in * d_out;
};
template <class T, std::size_t d_in, std::size_t d_out, std::size_t num_heads, std::size_t context_length,
          bool qkv_bias>
struct parameter_counter<multi_head_attention<T, d_in, d_out, num_heads, context_length, qkv_bias>> {
  static constexpr std::size_t value = 3 * d_in * d_out + (qkv_bias ? 3 * d_out : 0) + d_out * d_out + d_out;
};
template <class T, std::size_t D, std::size_t NumHeads, std::size_t ContextLength, bool QkvBias>
struct parameter_counter<transformer_block<T, D, NumHeads, ContextLength, QkvBias>> {
  using block = transformer_block<T, D, NumHeads, ContextLength, QkvBias>;
  static constexpr std::size_t value = parameter_counter<decltype(block::att)>::value +
                                       parameter_counter<decltype(block::ff)>::value +
                                       2 * parameter_counter<decltype(block::norm1)>::value;
};
}  // namespace detail

template <class M>
constexpr std::size_t parameter_count() noexcept {
  if constexpr (requires { M::parameter_count + 0; })
    return M::parameter_count;  // gpt_model counts its own
  else
    return detail::parameter_counter<M>::value;
}

/// `sum(p.numel() for p in m.parameters())`.
template <class M>
constexpr std::size_t parameter_count(const M&) noexcept {
  return parameter_count<M>();
}

}  // namespace static_attention

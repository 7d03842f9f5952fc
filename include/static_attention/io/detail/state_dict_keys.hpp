// SPDX-License-Identifier: BSL-1.0
// The book's state-dict names of a gpt_model's tensors, and how each is laid out in the file:
// one mapping, walked by every loader (load_state_dict's two passes, load_safetensors for the
// book's names and, translated, for Hugging Face's GPT-2 names).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <boost/hana/for_each.hpp>

#include <static_attention/core/matrix.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/transformer_block.hpp>

namespace static_attention::detail {

// "trf_blocks.3.att.W_query.weight"
inline std::string state_dict_block_key(std::size_t block, std::string_view name) {
  return "trf_blocks." + std::to_string(block) + "." + std::string{name};
}

// The keys of block `index` (a function object, not a lambda: see elementwise.hpp).
struct state_dict_block_keys {
  std::size_t index;
  std::string operator()(std::string_view name) const { return state_dict_block_key(index, name); }
};

// One block's tensors, in state-dict order (a module's own buffers, then its children's). A
// visitor has `same(key, role, m)` (a tensor in the file's layout: embeddings, and 1-D tensors as
// 1 x n rows), `transposed(key, role, m)` (an nn.Linear weight, out x in in the file, in x out in
// the model) and `mask<Ctx>(key)` (the optional causal-mask buffer); each returns false to stop.
template <class V, class T, std::size_t D, std::size_t NumHeads, std::size_t Ctx, bool QkvBias>
bool visit_state_dict_block(V& visitor, std::size_t index, transformer_block<T, D, NumHeads, Ctx, QkvBias>& block) {
  constexpr std::string_view square = "emb_dim x emb_dim, nn.Linear's out x in";
  constexpr std::string_view row = "emb_dim";
  const state_dict_block_keys key{index};
  auto& att = block.att;
  if (!visitor.template mask<Ctx>(key("att.mask"))) return false;
  if (!visitor.transposed(key("att.W_query.weight"), square, att.W_query)) return false;
  if constexpr (QkvBias)
    if (!visitor.same(key("att.W_query.bias"), row, att.b_query)) return false;
  if (!visitor.transposed(key("att.W_key.weight"), square, att.W_key)) return false;
  if constexpr (QkvBias)
    if (!visitor.same(key("att.W_key.bias"), row, att.b_key)) return false;
  if (!visitor.transposed(key("att.W_value.weight"), square, att.W_value)) return false;
  if constexpr (QkvBias)
    if (!visitor.same(key("att.W_value.bias"), row, att.b_value)) return false;
  return visitor.transposed(key("att.out_proj.weight"), square, att.W_out) &&
         visitor.same(key("att.out_proj.bias"), row, att.b_out) &&
         visitor.transposed(key("ff.layers.0.weight"), "4 emb_dim x emb_dim, nn.Linear's out x in",
                            block.ff.expand.weight) &&
         visitor.same(key("ff.layers.0.bias"), "4 emb_dim", block.ff.expand.bias) &&
         visitor.transposed(key("ff.layers.2.weight"), "emb_dim x 4 emb_dim, nn.Linear's out x in",
                            block.ff.project.weight) &&
         visitor.same(key("ff.layers.2.bias"), row, block.ff.project.bias) &&
         visitor.same(key("norm1.scale"), row, block.norm1.scale) &&
         visitor.same(key("norm1.shift"), row, block.norm1.shift) &&
         visitor.same(key("norm2.scale"), row, block.norm2.scale) &&
         visitor.same(key("norm2.shift"), row, block.norm2.shift);
}

template <class V>
struct visit_state_dict_blocks {
  V* visitor;
  std::size_t* index;
  bool* ok;
  template <class Block>
  void operator()(Block& block) const {
    if (*ok) *ok = visit_state_dict_block(*visitor, *index, block);
    ++*index;
  }
};

// Every tensor of the model, in state-dict order, until the visitor returns false.
template <class V, class T, gpt_config Cfg>
bool visit_state_dict(V& visitor, gpt_model<T, Cfg>& model) {
  if (!visitor.same("tok_emb.weight", "vocab_size x emb_dim", model.tok_emb.weight) ||
      !visitor.same("pos_emb.weight", "context_length x emb_dim", model.pos_emb.weight))
    return false;
  std::size_t index = 0;
  bool ok = true;
  boost::hana::for_each(model.trf_blocks, visit_state_dict_blocks<V>{&visitor, &index, &ok});
  return ok && visitor.same("final_norm.scale", "emb_dim", model.final_norm.scale) &&
         visitor.same("final_norm.shift", "emb_dim", model.final_norm.shift) &&
         visitor.transposed("out_head.weight", "vocab_size x emb_dim, nn.Linear's out x in", model.out_head);
}

// Collects the keys a model has (masks included), for the strict check of unexpected tensors.
struct state_dict_key_collector {
  std::vector<std::string> keys;
  template <class M>
  bool same(const std::string& key, std::string_view, M&) {
    keys.push_back(key);
    return true;
  }
  template <class M>
  bool transposed(const std::string& key, std::string_view, M&) {
    keys.push_back(key);
    return true;
  }
  template <std::size_t Ctx>
  bool mask(const std::string& key) {
    keys.push_back(key);
    return true;
  }
};

// The book's keys of a gpt_model<T, Cfg>, in state-dict order.
template <class T, gpt_config Cfg>
std::vector<std::string> state_dict_keys(gpt_model<T, Cfg>& model) {
  state_dict_key_collector collector;
  visit_state_dict(collector, model);
  return std::move(collector.keys);
}

// Why a key the model lacks is refused, for the keys of the models a Cfg is most easily confused with.
template <gpt_config Cfg>
std::string state_dict_unexpected_why(std::string_view key) {
  const auto ends_with = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
  };
  if (!Cfg.qkv_bias && (ends_with("att.W_query.bias") || ends_with("att.W_key.bias") || ends_with("att.W_value.bias")))
    return "a query/key/value bias, but qkv_bias = false (OpenAI's GPT-2 needs qkv_bias = true)";
  if (key == "out_head.bias") return "the book's out_head has no bias";
  const std::string next = "trf_blocks." + std::to_string(Cfg.n_layers) + ".";
  if (key.substr(0, next.size()) == next)
    return "the gpt_config has n_layers = " + std::to_string(Cfg.n_layers) + ", and the file has more blocks";
  return "the model has no such tensor";
}

// The key among `names` that best shows a file of another model (in the order the hints above
// are most telling: qkv biases, an extra block, out_head.bias), else the first one not in
// `known`; empty if every name is known.
template <gpt_config Cfg>
std::string state_dict_first_unexpected(const std::vector<std::string>& names, const std::vector<std::string>& known) {
  const auto is_known = [&](const std::string& name) {
    for (const std::string& k : known)
      if (k == name) return true;
    return false;
  };
  const std::string telling[] = {state_dict_block_key(0, "att.W_query.bias"),
                                 state_dict_block_key(Cfg.n_layers, "att.W_query.weight"), "out_head.bias"};
  for (const std::string& t : telling)
    for (const std::string& name : names)
      if (name == t && !is_known(name)) return name;
  for (const std::string& name : names)
    if (!is_known(name)) return name;
  return {};
}

}  // namespace static_attention::detail

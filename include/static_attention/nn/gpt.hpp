// SPDX-License-Identifier: BSL-1.0
// The book's GPT (chapter 4): configuration, model, PyTorch's initialisation and greedy
// generation, with every shape in the types.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

#include <boost/hana/ext/std/array.hpp>  // hana::for_each and at_c on trf_blocks, as on a tuple

#include <static_attention/core/elementwise.hpp>
#include <static_attention/core/matmul.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/core/softmax.hpp>
#include <static_attention/core/stack_limit.hpp>
#include <static_attention/nn/detail/parallel_policy.hpp>
#include <static_attention/nn/dropout.hpp>
#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/kv_cache.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/nn/token_ids.hpp>
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/nn/transformer_block.hpp>

namespace static_attention {

class thread_pool;  // nn/thread_pool.hpp (hosted builds): the overloads that take one

/// The book's GPT configuration, as a structural type (a template argument of gpt_model). The
/// dropout rate is a run-time member of the model (`gpt_model::set_drop_rate`). n_layers may be
/// 0 (the chapter's DummyGPTModel has no real blocks). With tie_weights, out_head is tok_emb's
/// weight, shared, as in GPT-2's checkpoint (`model.out_head.weight = model.tok_emb.weight`).
struct gpt_config {
  std::size_t vocab_size;
  std::size_t context_length;
  std::size_t emb_dim;
  std::size_t n_heads;
  std::size_t n_layers;
  bool qkv_bias;
  /// out_head shares tok_emb's weight (no out_head storage of its own).
  bool tie_weights = false;
};

/// GPT_CONFIG_124M: GPT-2 small's shapes.
inline constexpr gpt_config gpt2_124m{50257, 1024, 768, 12, 12, false};

/// OpenAI's GPT-2 sizes, as its weights (and Hugging Face's model.safetensors) have them: the
/// q, k, v projections with biases (the book's chapter 5 loads them with qkv_bias=True).
inline constexpr gpt_config gpt2_small{50257, 1024, 768, 12, 12, true};
inline constexpr gpt_config gpt2_medium{50257, 1024, 1024, 16, 24, true};
inline constexpr gpt_config gpt2_large{50257, 1024, 1280, 20, 36, true};
inline constexpr gpt_config gpt2_xl{50257, 1024, 1600, 25, 48, true};

namespace detail {
// The rules as functions of their own, so that diagnostics show the numbers.
template <std::size_t N, std::size_t ContextLength>
constexpr void check_gpt_tokens() noexcept {
  static_assert(tokens_within_context_length<N, ContextLength>,
                "gpt_model(ids) requires N <= context_length (tokens_within_context_length<N, context_length>): "
                "crop the ids to the last context_length, as generate_text_simple does");
}

// A batch of B sequences of N ids through a model's forward pass (N ids -> N x V), one sequence
// at a time: B x N x V.
template <class U, std::size_t V, token_id I, std::size_t B, std::size_t N, class Model>
constexpr tensor<U, B, N, V> per_sequence(const Model& model, const matrix<I, B, N>& ids) noexcept {
  tensor<U, B, N, V> out;
  for (std::size_t b = 0; b < B; ++b) {
    std::array<I, N> item{};
    for (std::size_t i = 0; i < N; ++i) item[i] = ids.elems[b * N + i];
    set_item(out, b, model(item));
  }
  return out;
}

// The first index of the largest value (torch.argmax's choice on ties).
template <class T, std::size_t C>
constexpr std::size_t argmax(const matrix<T, 1, C>& row) noexcept {
  std::size_t best = 0;
  for (std::size_t j = 1; j < C; ++j)
    if (row.elems[j] > row.elems[best]) best = j;
  return best;
}
}  // namespace detail

/// Everything a cached forward pass of gpt_model<T, Cfg> keeps between calls and uses on the
/// way: one kv_cache of Capacity tokens per block, and the activations of one chunk of up to
/// `chunk` tokens (a prompt runs through in chunks). The caller owns it, so a forward pass or
/// decode step needs no heap and little stack. Default-constructible and large for big models
/// (GPT-2 124M at Capacity 1024: 72 MiB of caches and 3 MiB of activations), so make it
/// `static`, put it on the heap, place it in a memory section of your choice, or, for a small
/// model, make it a local of a constexpr function. Capacity <= context_length.
template <class T, gpt_config Cfg, std::size_t Capacity>
struct gpt_workspace {
  static_assert(Capacity > 0 && Capacity <= Cfg.context_length,
                "gpt_workspace<T, Cfg, Capacity> requires 0 < Capacity <= context_length");
  /// The most tokens it holds.
  static constexpr std::size_t capacity = Capacity;
  /// Tokens per chunk of a prefill: enough rows for the matrix kernels to reuse each weight
  /// (a chunk reads every weight once), few enough to keep the buffers small.
  static constexpr std::size_t chunk = Capacity < 128 ? Capacity : 128;
  /// Block i's keys and values.
  std::array<kv_cache<T, Capacity, Cfg.emb_dim>, Cfg.n_layers> caches{};
  /// The residual stream of the chunk's tokens.
  matrix<T, chunk, Cfg.emb_dim> x;
  /// LayerNorm outputs, attention and feed-forward results before they join the stream.
  matrix<T, chunk, Cfg.emb_dim> normed;
  /// Queries, then the heads' context vectors.
  matrix<T, chunk, Cfg.emb_dim> queries;
  matrix<T, chunk, Cfg.emb_dim> context;
  /// The feed-forward block's hidden features.
  matrix<T, chunk, 4 * Cfg.emb_dim> hidden;
  /// Attention weights: one row per head (a pool's threads take heads of their own).
  matrix<T, Cfg.n_heads, Capacity> scores;

  /// Tokens held (the position of the next one).
  constexpr std::size_t length() const noexcept {
    if constexpr (Cfg.n_layers == 0)
      return blockless_length_;
    else
      return caches[0].length;
  }
  /// Forgets every token.
  constexpr void clear() noexcept {
    for (auto& cache : caches) cache.clear();
    blockless_length_ = 0;
  }

 private:
  template <class, gpt_config>
  friend struct gpt_model;
  // Tokens held by a model without blocks, which has no cache to count them in.
  std::size_t blockless_length_ = 0;
};

namespace detail {
/// out_head of a model with tie_weights: no storage; the head reads tok_emb's weight.
struct tied_out_head {
  friend constexpr bool operator==(tied_out_head, tied_out_head) noexcept = default;
};
}  // namespace detail

namespace detail {
// One block on the N tokens in workspace.x (N <= chunk), in place, with the block's cache:
// the operations of transformer_block::operator()(x, cache), in the same order, on the
// workspace's buffers instead of locals. The products and the attention run as `policy` shares
// them (serial, or parallel over a pool's threads: the same bits).
template <std::size_t N, class T, std::size_t D, std::size_t Heads, std::size_t Ctx, bool QkvBias, class Workspace,
          std::size_t Capacity, class Policy>
constexpr void block_step(const transformer_block<T, D, Heads, Ctx, QkvBias>& block, kv_cache<T, Capacity, D>& cache,
                          Workspace& ws, const Policy& policy) noexcept {
  T* x = ws.x.elems;
  T* normed = ws.normed.elems;
  T* queries = ws.queries.elems;
  T* context = ws.context.elems;
  const auto& att = block.att;
  // x + att(norm1(x))
  for (std::size_t i = 0; i < N; ++i) block.norm1.normalize_row(x + i * D, normed + i * D);
  const std::size_t first = cache.length;
  T* values = cache.values.elems + first * D;
  policy.template matmul<T, N, D, D>(normed, att.W_query.elems, queries);
  policy.template matmul<T, N, D, D>(normed, att.W_key.elems, context);  // the keys, before the cache's columns
  policy.template matmul<T, N, D, D>(normed, att.W_value.elems, values);
  if constexpr (QkvBias) {
    add_bias_rows<T, N, D>(queries, att.b_query);
    add_bias_rows<T, N, D>(context, att.b_key);
    add_bias_rows<T, N, D>(values, att.b_value);
  }
  store_keys<Capacity, D>(cache.keys_t.elems, first, N, context);
  for (std::size_t k = 0; k < N * D; ++k) context[k] = T{};
  policy.template attend<T, D, Heads, Capacity>(queries, N, cache.keys_t.elems, cache.values.elems, first, context,
                                                ws.scores.elems);
  cache.length = first + N;
  policy.template matmul<T, N, D, D>(context, att.W_out.elems, normed);
  add_bias_rows<T, N, D>(normed, att.b_out);
  for (std::size_t k = 0; k < N * D; ++k) x[k] = x[k] + normed[k];
  // x + ff(norm2(x))
  for (std::size_t i = 0; i < N; ++i) block.norm2.normalize_row(x + i * D, normed + i * D);
  T* hidden = ws.hidden.elems;
  policy.template matmul<T, N, D, 4 * D>(normed, block.ff.expand.weight.elems, hidden);
  add_bias_rows<T, N, 4 * D>(hidden, block.ff.expand.bias);
  gelu_in_place(hidden, N * 4 * D);
  policy.template matmul<T, N, 4 * D, D>(hidden, block.ff.project.weight.elems, normed);
  add_bias_rows<T, N, D>(normed, block.ff.project.bias);
  for (std::size_t k = 0; k < N * D; ++k) x[k] = x[k] + normed[k];
}
}  // namespace detail

namespace detail {
struct decode_access;
}  // namespace detail

/// The book's GPTModel for configuration Cfg: token and positional embeddings, n_layers
/// transformer blocks, a final LayerNorm and an output head without bias.
///
/// Default construction gives zeros everywhere (a `static` model lands in .bss); fill it with
/// init_like_torch or load_state_dict (state_dict.hpp). Every linear weight, `out_head`
/// included, is kept in the x @ W layout (in x out): a one-token step then reads each weight
/// matrix front to back, once.
template <class T, gpt_config Cfg>
struct gpt_model {
  static_assert(detail::check_attention_element<T>());
  static_assert(Cfg.vocab_size > 0 && Cfg.context_length > 0 && Cfg.emb_dim > 0,
                "gpt_model<T, Cfg> requires a vocabulary, a context length and an embedding");

  /// The configuration.
  static constexpr gpt_config config = Cfg;
  /// The element type.
  using value_type = T;
  /// One transformer block.
  using block_type = transformer_block<T, Cfg.emb_dim, Cfg.n_heads, Cfg.context_length, Cfg.qkv_bias>;
  /// The blocks: n_layers of block_type, in order.
  using blocks_type = std::array<block_type, Cfg.n_layers>;

  /// Every parameter, as `sum(p.numel() for p in model.parameters())` counts them (a tied
  /// out_head's weight is tok_emb's, counted once).
  static constexpr std::size_t parameter_count = [] {
    constexpr std::size_t d = Cfg.emb_dim;
    constexpr std::size_t attention = 4 * d * d + d + (Cfg.qkv_bias ? 3 * d : 0);
    constexpr std::size_t ff = d * 4 * d + 4 * d + 4 * d * d + d;
    constexpr std::size_t block = attention + ff + 4 * d;
    return Cfg.vocab_size * d + Cfg.context_length * d + Cfg.n_layers * block + 2 * d +
           (Cfg.tie_weights ? 0 : d * Cfg.vocab_size);
  }();

  /// `tok_emb`: vocab_size x emb_dim.
  embedding<T, Cfg.vocab_size, Cfg.emb_dim> tok_emb;
  /// `pos_emb`: context_length x emb_dim.
  embedding<T, Cfg.context_length, Cfg.emb_dim> pos_emb;
  /// `trf_blocks`.
  blocks_type trf_blocks;
  /// `final_norm`.
  layer_norm<T, Cfg.emb_dim> final_norm;
  /// The type of out_head: emb_dim x vocab_size, or detail::tied_out_head with tie_weights.
  using out_head_type =
      std::conditional_t<Cfg.tie_weights, detail::tied_out_head, matrix<T, Cfg.emb_dim, Cfg.vocab_size>>;
  /// `out_head.weight` transposed: emb_dim x vocab_size (x @ W; no bias). With tie_weights, an
  /// empty member: the head is `h tok_emb.weight^T`.
  [[no_unique_address]] out_head_type out_head;
  /// `drop_emb`'s probability (training mode only; see set_drop_rate).
  T drop_rate{};

  /// The dropout probability of every dropout in the model (the book's cfg["drop_rate"]):
  /// embeddings, attention weights and shortcuts. Used only in training mode.
  constexpr void set_drop_rate(T p) noexcept {
    drop_rate = detail::checked_dropout_p(p);
    for (auto& block : trf_blocks) {
      block.drop_rate = drop_rate;
      block.att.dropout_p = drop_rate;
    }
  }

  /// Bytes a full forward pass of N ids holds on the stack at once: the logits, and about a
  /// dozen N x emb_dim activations inside a block (see stack_limit).
  template <std::size_t N>
  static constexpr std::size_t forward_stack_bytes =
      sizeof(T) * N*(Cfg.vocab_size + Cfg.emb_dim) + block_type::template stack_bytes<N>;

  /// Evaluation mode: N ids -> N x vocab_size logits. An id outside the vocabulary is a compile
  /// error in constant evaluation; at run time it reads nothing and its logits are NaN (check
  /// the ids with check_ids() for an error value, or use the workspace calls, which return one).
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, Cfg.vocab_size> operator()(const std::array<I, N>& ids) const noexcept {
    detail::check_stack<forward_stack_bytes<N>, detail::instead_gpt_model_hidden_ids_workspace>();
    if constexpr (stack_use_within<forward_stack_bytes<N>, stack_limit>)  // else the one error above
      return head(hidden(ids));
    else
      return {};
  }

  /// Evaluation mode on ids checked by check_ids().
  template <std::size_t N, token_id I>
  constexpr matrix<T, N, Cfg.vocab_size> operator()(const token_ids<Cfg.vocab_size, N, I>& ids) const noexcept {
    return (*this)(ids.ids());
  }

  /// Training mode: dropout drawn from gen (embeddings, then each block).
  template <token_id I, std::size_t N, random_source G>
  constexpr matrix<T, N, Cfg.vocab_size> operator()(const std::array<I, N>& ids, G& gen) const noexcept {
    detail::check_stack<forward_stack_bytes<N>, detail::instead_gpt_model_hidden_ids_workspace>();
    if constexpr (stack_use_within<forward_stack_bytes<N>, stack_limit>) {
      auto x = dropout(embed(ids), drop_rate, gen);
      for (const auto& block : trf_blocks) x = block(x, gen);
      return head(final_norm(x));
    } else {
      return {};
    }
  }

  /// Evaluation mode for a batch: B x N ids -> B x N x vocab_size logits.
  template <token_id I, std::size_t B, std::size_t N>
  constexpr tensor<T, B, N, Cfg.vocab_size> operator()(const matrix<I, B, N>& ids) const noexcept {
    return detail::per_sequence<T, Cfg.vocab_size>(*this, ids);
  }

  /// Training mode for a batch: B x N ids -> B x N x vocab_size logits, the dropout masks drawn
  /// from gen as torch draws them for the (B, N, ...) batch: drop_emb over the whole
  /// B x N x emb_dim embeddings, then block by block (each block's dropouts over the whole
  /// batch, see transformer_block). Not the same draws as B single-sequence calls.
  template <token_id I, std::size_t B, std::size_t N, random_source G>
  constexpr tensor<T, B, N, Cfg.vocab_size> operator()(const matrix<I, B, N>& ids, G& gen) const noexcept {
    detail::check_stack<forward_stack_bytes<N> + 2 * sizeof(T) * B * N * Cfg.emb_dim,
                        detail::instead_gpt_model_hidden_ids_workspace>();
    tensor<T, B, N, Cfg.vocab_size> out;
    if constexpr (stack_use_within<forward_stack_bytes<N> + 2 * sizeof(T) * B * N * Cfg.emb_dim, stack_limit>) {
      auto x = dropout(embed(ids), drop_rate, gen);
      for (const auto& block : trf_blocks) x = block(x, gen);
      for (std::size_t b = 0; b < B; ++b) set_item(out, b, head(final_norm(x[b])));
    }
    return out;
  }

  /// The final-norm hidden states (before out_head): N ids -> N x emb_dim.
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, Cfg.emb_dim> hidden(const std::array<I, N>& ids) const noexcept {
    constexpr std::size_t bytes = block_type::template stack_bytes<N> + sizeof(T) * N * Cfg.emb_dim;
    detail::check_stack<bytes, detail::instead_gpt_model_hidden_ids_workspace>();
    auto x = embed(ids);
    if constexpr (N <= Cfg.context_length && stack_use_within<bytes, stack_limit>) {  // else one error, not two
      for (const auto& block : trf_blocks) x = block(x);
      return final_norm(x);
    } else {
      return x;
    }
  }

  /// The final-norm hidden states of N ids that follow the workspace's tokens (positions
  /// length() .. length() + N - 1), appending them to its caches: the rows hidden() gives for
  /// the whole sequence, bit for bit. The work runs in the workspace's buffers, a chunk of ids
  /// at a time; only the result is on the stack. An id outside the vocabulary
  /// (errc::id_out_of_range; in constant evaluation, a compile error) or more tokens than the
  /// workspace has room for (errc::capacity_exceeded) is an error value, in every build, and
  /// the workspace is left as it was.
  template <token_id I, std::size_t N, std::size_t Capacity>
  constexpr result<matrix<T, N, Cfg.emb_dim>> hidden(const std::array<I, N>& ids,
                                                     gpt_workspace<T, Cfg, Capacity>& workspace) const noexcept {
    detail::check_stack<sizeof(T) * N * Cfg.emb_dim, detail::instead_prefill_ids_workspace_for_the_last_row>();
    if (auto admitted = admit("hidden(ids, workspace)", ids.data(), N, workspace); !admitted) return admitted.error();
    return {detail::result_fill, chunks_into<I, N, Capacity>{this, ids.data(), &workspace, 0, detail::serial{}}};
  }

  /// Runs N ids through the workspace (as hidden(ids, workspace)) and returns only the last
  /// one's final-norm hidden state: what the next id depends on. Stack use does not grow with N.
  /// The same error values as hidden(ids, workspace), the workspace left as it was.
  template <token_id I, std::size_t N, std::size_t Capacity>
  constexpr result<matrix<T, 1, Cfg.emb_dim>> prefill(const std::array<I, N>& ids,
                                                      gpt_workspace<T, Cfg, Capacity>& workspace) const noexcept {
    if (auto admitted = admit("prefill(ids, workspace)", ids.data(), N, workspace); !admitted) return admitted.error();
    return {detail::result_fill, chunks_into<I, N, Capacity>{this, ids.data(), &workspace, N - 1, detail::serial{}}};
  }

  /// prefill for ids whose count is known only at run time (a command line's prompt): the last
  /// id's final-norm hidden state, bit for bit what prefill(std::array) gives. No ids is
  /// errc::invalid_argument; the other errors as prefill's, the workspace left as it was.
  template <token_id I, std::size_t Extent, std::size_t Capacity>
  constexpr result<matrix<T, 1, Cfg.emb_dim>> prefill(std::span<const I, Extent> ids,
                                                      gpt_workspace<T, Cfg, Capacity>& workspace) const noexcept {
    return prefill_with(ids, workspace, detail::serial{});
  }

  /// hidden(ids, workspace) with the work split between pool's threads (nn/thread_pool.hpp):
  /// the same rows, bit for bit, for every thread count; the same error values. Run time only.
  template <token_id I, std::size_t N, std::size_t Capacity>
  result<matrix<T, N, Cfg.emb_dim>> hidden(const std::array<I, N>& ids, gpt_workspace<T, Cfg, Capacity>& workspace,
                                           thread_pool& pool) const noexcept {
    detail::check_stack<sizeof(T) * N * Cfg.emb_dim, detail::instead_prefill_ids_workspace_for_the_last_row>();
    if (auto admitted = admit("hidden(ids, workspace, pool)", ids.data(), N, workspace); !admitted)
      return admitted.error();
    using policy = detail::parallel<thread_pool>;
    return {detail::result_fill, chunks_into<I, N, Capacity, policy>{this, ids.data(), &workspace, 0, policy{&pool}}};
  }

  /// prefill(ids, workspace) with the work split between pool's threads: the same row, bit for
  /// bit, for every thread count; the same error values. Run time only.
  template <token_id I, std::size_t N, std::size_t Capacity>
  result<matrix<T, 1, Cfg.emb_dim>> prefill(const std::array<I, N>& ids, gpt_workspace<T, Cfg, Capacity>& workspace,
                                            thread_pool& pool) const noexcept {
    if (auto admitted = admit("prefill(ids, workspace, pool)", ids.data(), N, workspace); !admitted)
      return admitted.error();
    using policy = detail::parallel<thread_pool>;
    return {detail::result_fill,
            chunks_into<I, N, Capacity, policy>{this, ids.data(), &workspace, N - 1, policy{&pool}}};
  }

  /// prefill(span, workspace) with the work split between pool's threads. Run time only.
  template <token_id I, std::size_t Extent, std::size_t Capacity>
  result<matrix<T, 1, Cfg.emb_dim>> prefill(std::span<const I, Extent> ids, gpt_workspace<T, Cfg, Capacity>& workspace,
                                            thread_pool& pool) const noexcept {
    return prefill_with(ids, workspace, detail::parallel<thread_pool>{&pool});
  }

  /// prefill(span, workspace) as `policy` shares the work (detail::serial or detail::parallel).
  template <token_id I, std::size_t Extent, std::size_t Capacity, class Policy>
  constexpr result<matrix<T, 1, Cfg.emb_dim>> prefill_with(std::span<const I, Extent> ids,
                                                           gpt_workspace<T, Cfg, Capacity>& workspace,
                                                           const Policy& policy) const noexcept {
    if (ids.empty()) return make_error(errc::invalid_argument, "prefill(ids, workspace): no ids");
    if (auto admitted = admit("prefill(ids, workspace)", ids.data(), ids.size(), workspace); !admitted)
      return admitted.error();
    return {detail::result_fill, pieces_into<I, Capacity, Policy>{this, ids.data(), ids.size(), &workspace, policy}};
  }

  /// The check hidden() and prefill() make before they touch the workspace: every id in the
  /// vocabulary, and room for count more tokens.
  template <token_id I, std::size_t Capacity>
  constexpr result<void> admit(std::string_view call, const I* ids, std::size_t count,
                               const gpt_workspace<T, Cfg, Capacity>& workspace) const noexcept {
    return detail::admit_ids<Cfg.vocab_size, Capacity>(call, ids, count, workspace.length());
  }

  /// out_head: h out_head, N x emb_dim -> N x vocab_size (with tie_weights, h tok_emb.weight^T:
  /// the same bits as an untied out_head holding tok_emb.weight^T).
  template <std::size_t N>
  constexpr matrix<T, N, Cfg.vocab_size> head(const matrix<T, N, Cfg.emb_dim>& h) const noexcept {
    if constexpr (Cfg.tie_weights) {
      matrix<T, N, Cfg.vocab_size> logits{detail::uninitialized};  // the kernel writes every element
      detail::matmul_abt_kernel<T, N, Cfg.emb_dim, Cfg.vocab_size>(h.elems, tok_emb.weight.elems, logits.elems);
      return logits;
    } else {
      return matmul(h, out_head);
    }
  }

  /// out_head for a batch: B x N x emb_dim -> B x N x vocab_size.
  template <std::size_t B, std::size_t N>
  constexpr tensor<T, B, N, Cfg.vocab_size> head(const tensor<T, B, N, Cfg.emb_dim>& h) const noexcept {
    tensor<T, B, N, Cfg.vocab_size> out;
    for (std::size_t b = 0; b < B; ++b) set_item(out, b, head(h[b]));
    return out;
  }

  /// tok_emb(ids) + pos_emb(arange(N)).
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, Cfg.emb_dim> embed(const std::array<I, N>& ids) const noexcept {
    detail::check_gpt_tokens<N, Cfg.context_length>();
    matrix<T, N, Cfg.emb_dim> x;
    if constexpr (N <= Cfg.context_length)
      for (std::size_t i = 0; i < N; ++i) embed_row(ids[i], i, x.elems + i * Cfg.emb_dim);
    return x;
  }

  /// tok_emb(ids) + pos_emb(arange(N)) for a batch: B x N ids -> B x N x emb_dim.
  template <token_id I, std::size_t B, std::size_t N>
  constexpr tensor<T, B, N, Cfg.emb_dim> embed(const matrix<I, B, N>& ids) const noexcept {
    detail::check_gpt_tokens<N, Cfg.context_length>();
    tensor<T, B, N, Cfg.emb_dim> x;
    if constexpr (N <= Cfg.context_length)
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < N; ++i) embed_row(ids.elems[b * N + i], i, x.elems + (b * N + i) * Cfg.emb_dim);
    return x;
  }

 private:
  friend struct detail::decode_access;

  // prefill_with's work without its checks, for the decode loop (detail::decode_steps), whose
  // ids are admitted already: the last id's final-norm row into `last`, and no result (with its
  // room for an error) on the stack.
  template <class I, std::size_t Capacity, class Policy>
  constexpr void decode_into(const I* ids, std::size_t count, gpt_workspace<T, Cfg, Capacity>& workspace,
                             matrix<T, 1, Cfg.emb_dim>& last, const Policy& policy) const noexcept {
    pieces_into<I, Capacity, Policy>{this, ids, count, &workspace, policy}(last);
  }

  // run_chunks as the filler of a result (a function object, not a lambda: GCC's -Wshadow would
  // flag a lambda's parameter names against a user's globals).
  template <class I, std::size_t N, std::size_t Capacity, class Policy = detail::serial>
  struct chunks_into {
    const gpt_model* model;
    const I* ids;
    gpt_workspace<T, Cfg, Capacity>* workspace;
    std::size_t keep_from;
    Policy policy{};
    template <class Rows>
    constexpr void operator()(Rows& rows) const noexcept {
      model->template run_chunks<I, N>(ids, *workspace, rows.elems, keep_from, policy);
    }
  };

  // count ids (known at run time) through the workspace: whole chunks, then the rest in pieces
  // of P, P / 2, ..., 1 ids (the bits of the rest); only the last id's final-norm row is kept.
  template <class I, std::size_t Capacity, class Policy = detail::serial>
  struct pieces_into {
    const gpt_model* model;
    const I* ids;
    std::size_t count;
    gpt_workspace<T, Cfg, Capacity>* workspace;
    Policy policy{};
    constexpr void operator()(matrix<T, 1, Cfg.emb_dim>& last) const noexcept {
      constexpr std::size_t chunk = gpt_workspace<T, Cfg, Capacity>::chunk;
      std::size_t done = 0;
      for (; count - done > chunk; done += chunk)
        model->template run_chunk<chunk>(ids + done, *workspace, last.elems, count - 1, done, policy);
      piece<std::bit_floor(chunk)>(count - done, done, last);
    }
    template <std::size_t P>
    constexpr void piece(std::size_t rest, std::size_t done, matrix<T, 1, Cfg.emb_dim>& last) const noexcept {
      if constexpr (P > 0) {
        if ((rest & P) != 0) {
          model->template run_chunk<P>(ids + done, *workspace, last.elems, count - 1, done, policy);
          done += P;
        }
        piece<P / 2>(rest, done, last);
      }
    }
  };

  // N ids through the workspace in chunks; the final-norm rows from `keep_from` on are
  // written to out (row keep_from first).
  template <class I, std::size_t N, std::size_t Capacity, class Policy>
  constexpr void run_chunks(const I* ids, gpt_workspace<T, Cfg, Capacity>& ws, T* out, std::size_t keep_from,
                            const Policy& policy) const noexcept {
    static_assert(N > 0, "gpt_model: at least one id");
    static_assert(tokens_within_context_length<N, Capacity>,
                  "gpt_model::hidden(ids, workspace) requires N <= the workspace's capacity");
    constexpr std::size_t chunk = gpt_workspace<T, Cfg, Capacity>::chunk;
    constexpr std::size_t whole = (N - 1) / chunk;  // whole chunks before the last
    constexpr std::size_t last = N - whole * chunk;
    for (std::size_t c = 0; c < whole; ++c) run_chunk<chunk>(ids + c * chunk, ws, out, keep_from, c * chunk, policy);
    run_chunk<last>(ids + whole * chunk, ws, out, keep_from, whole * chunk, policy);
  }

  template <std::size_t Count, class I, std::size_t Capacity, class Policy>
  constexpr void run_chunk(const I* ids, gpt_workspace<T, Cfg, Capacity>& ws, T* out, std::size_t keep_from,
                           std::size_t offset, const Policy& policy) const noexcept {
    constexpr std::size_t d = Cfg.emb_dim;
    const std::size_t position = ws.length();
    for (std::size_t i = 0; i < Count; ++i) embed_row(ids[i], position + i, ws.x.elems + i * d);
    for (std::size_t l = 0; l < Cfg.n_layers; ++l) detail::block_step<Count>(trf_blocks[l], ws.caches[l], ws, policy);
    if constexpr (Cfg.n_layers == 0) ws.blockless_length_ = position + Count;
    for (std::size_t i = 0; i < Count; ++i)
      if (offset + i >= keep_from) final_norm.normalize_row(ws.x.elems + i * d, out + (offset + i - keep_from) * d);
  }

  // tok_emb[id] + pos_emb[position] into out (emb_dim values); NaN for an id outside the
  // vocabulary (a compile error in constant evaluation). position < context_length holds by the
  // callers' static_asserts and admit().
  template <class I>
  constexpr void embed_row(I id, std::size_t position, T* out) const noexcept {
    constexpr std::size_t d = Cfg.emb_dim;
    const auto row = static_cast<std::size_t>(id);  // a negative id wraps to a huge one
    if (!detail::in_vocabulary<Cfg.vocab_size>(id)) {
      if (std::is_constant_evaluated()) detail::check_index<Cfg.vocab_size>(row);
      for (std::size_t j = 0; j < d; ++j) out[j] = std::numeric_limits<T>::quiet_NaN();
      return;
    }
    for (std::size_t j = 0; j < d; ++j)
      out[j] = tok_emb.weight.elems[row * d + j] + pos_emb.weight.elems[position * d + j];
  }
};

/// Fills model in place as `torch.manual_seed(seed); GPTModel(cfg)` does, drawing from gen (made
/// with that seed) in module-creation order: tok_emb, pos_emb, each block (att, ff), final_norm,
/// out_head. Works on a model in static storage; nothing is copied. With tie_weights, out_head's
/// draws are taken and dropped, as torch draws the Linear before its weight is replaced by
/// tok_emb's: the generator ends where torch's does.
template <torch_real T, gpt_config Cfg>
constexpr void init_like_torch(gpt_model<T, Cfg>& model, torch_generator& gen) noexcept {
  init_like_torch(model.tok_emb, gen);
  init_like_torch(model.pos_emb, gen);
  for (auto& block : model.trf_blocks) init_like_torch(block, gen);
  init_like_torch(model.final_norm, gen);
  if constexpr (Cfg.tie_weights)
    detail::skip_linear_weight_draws<T, Cfg.emb_dim, Cfg.vocab_size>(gen);
  else
    detail::init_linear_xw<T, Cfg.emb_dim, Cfg.vocab_size>(model.out_head, nullptr, gen);  // bias=False
}

namespace detail {
// The next id after the hidden state h of the last position: argmax(softmax(logits)).
template <class I, class T, gpt_config Cfg>
constexpr I next_id(const gpt_model<T, Cfg>& model, const matrix<T, 1, Cfg.emb_dim>& h) noexcept {
  return static_cast<I>(argmax(softmax(model.head(h))));
}

// ids[first, first + Count) as an array.
template <std::size_t Count, class I, std::size_t Size>
constexpr std::array<I, Count> window(const std::array<I, Size>& ids, std::size_t first) noexcept {
  std::array<I, Count> out{};
  for (std::size_t i = 0; i < Count; ++i) out[i] = ids[first + i];
  return out;
}
}  // namespace detail

/// A workspace of Capacity tokens holds the Needed tokens a generation reads:
/// `workspace_capacity_fits<6, 7>` is false.
template <std::size_t Capacity, std::size_t Needed>
inline constexpr bool workspace_capacity_fits = Capacity >= Needed;

namespace detail {
template <std::size_t Capacity, std::size_t Needed>
constexpr void check_workspace_capacity() noexcept {
  static_assert(workspace_capacity_fits<Capacity, Needed>,
                "generate<MaxNew>(model, prompt, workspace) requires a workspace capacity >= "
                "min(N + MaxNew - 1, context_length) (workspace_capacity_fits<capacity, tokens needed>)");
}
}  // namespace detail

namespace detail {
// The decode loop's way into a model's workspace (gpt_model, quantized_gpt): their private
// decode_into(ids, count, workspace, row, policy), prefill_with's work without its checks.
struct decode_access {
  template <class Model, class I, class Workspace, class Row, class Policy>
  static constexpr void prefill(const Model& model, const I* ids, std::size_t count, Workspace& workspace, Row& last,
                                const Policy& policy) noexcept {
    model.decode_into(ids, count, workspace, last, policy);
  }
};

// The decode loop every generate shares: ids[0, n) hold the prompt (n >= 1, its ids checked,
// the workspace big enough); up to max_new ids are appended, each chosen by choose(h) from the
// last position's final-norm hidden state h, which returns the id or nothing to stop. The
// prompt's last context_length ids run once, then one id per step against the cache; past
// context_length the book's crop shifts every position, so each step runs the last
// context_length ids afresh (a slide). Returns the count of ids.
// Model is any model with gpt_model's workspace calls (gpt_model, quantized_gpt): a static
// `config`, prefill_with(std::span<const I>, workspace, policy) returning
// result<matrix<_, 1, _>>, the row choose takes, and decode_into (decode_access). The callers
// have admitted the ids (the prompt checked, a chosen id is in the vocabulary, the workspace
// holds every token the loop keeps), so each step runs unchecked: no result with room for an
// error lives on the decode loop's stack (nn/footprint.hpp counts what does).
template <class Model, class Workspace, token_id I, class Choose, class Policy = serial>
constexpr std::size_t decode_steps(const Model& model, I* ids, std::size_t n, std::size_t max_new, Workspace& workspace,
                                   Choose& choose, const Policy& policy = {}) noexcept {
  constexpr std::size_t ctx = Model::config.context_length;
  if (max_new == 0) return n;
  workspace.clear();
  const std::size_t used = n < ctx ? n : ctx;
  typename decltype(model.prefill_with(std::span<const I>(ids, 1), workspace, policy))::value_type h;
  decode_access::prefill(model, ids + (n - used), used, workspace, h, policy);
  std::size_t len = n;
  for (;;) {
    const std::optional<I> next = choose(h);
    if (!next) break;
    ids[len++] = *next;
    if (len == n + max_new) break;
    if (len <= ctx) {
      decode_access::prefill(model, ids + (len - 1), 1, workspace, h, policy);
    } else {
      workspace.clear();
      decode_access::prefill(model, ids + (len - ctx), ctx, workspace, h, policy);
    }
  }
  return len;
}

// The logits of the last position, h out_head, with the head's columns shared as policy shares
// them: model.head(h)'s bits.
template <class T, gpt_config Cfg, class Policy>
constexpr matrix<T, 1, Cfg.vocab_size> head_logits(const gpt_model<T, Cfg>& model, const matrix<T, 1, Cfg.emb_dim>& h,
                                                   const Policy& policy) noexcept {
  if constexpr (std::is_same_v<Policy, serial> || Cfg.tie_weights) {
    return model.head(h);
  } else {
    matrix<T, 1, Cfg.vocab_size> logits{uninitialized};  // the kernel writes every element
    policy.template matmul<T, 1, Cfg.emb_dim, Cfg.vocab_size>(h.elems, model.out_head.elems, logits.elems);
    return logits;
  }
}

// generate_text_simple's choice: argmax(softmax(logits)) of the last position.
template <class T, gpt_config Cfg, token_id I, class Policy = serial>
struct greedy_choice {
  const gpt_model<T, Cfg>* model;
  Policy policy;
  constexpr std::optional<I> operator()(const matrix<T, 1, Cfg.emb_dim>& h) const noexcept {
    return static_cast<I>(argmax(softmax(head_logits(*model, h, policy))));
  }
};

// greedy_steps as the filler of a result: the prompt, then MaxNew ids.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity,
          class Policy = serial>
struct greedy_into {
  const gpt_model<T, Cfg>* model;
  const std::array<I, N>* prompt;
  gpt_workspace<T, Cfg, Capacity>* workspace;
  Policy policy;
  constexpr void operator()(std::array<I, N + MaxNew>& ids) const noexcept {
    for (std::size_t i = 0; i < N; ++i) ids[i] = (*prompt)[i];
    greedy_choice<T, Cfg, I, Policy> choose{model, policy};
    decode_steps(*model, ids.data(), N, MaxNew, *workspace, choose, policy);
  }
};

// An id no vocabulary holds: what generate_text_simple appends after a prompt it refused.
template <token_id I>
inline constexpr I no_id = std::is_signed_v<I> ? static_cast<I>(-1) : std::numeric_limits<I>::max();
}  // namespace detail

namespace detail {
// generate()'s checks and its greedy loop, under a work-sharing policy (serial, or a pool's).
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity, class Policy>
constexpr result<std::array<I, N + MaxNew>> generate_greedy(const gpt_model<T, Cfg>& model,
                                                            const std::array<I, N>& prompt,
                                                            gpt_workspace<T, Cfg, Capacity>& workspace,
                                                            const Policy& policy) noexcept {
  static_assert(N > 0, "generate(model, prompt, workspace) requires at least one prompt id");
  static_assert(Cfg.vocab_size - 1 <= static_cast<unsigned long long>(std::numeric_limits<I>::max()),
                "generate(model, prompt, workspace) requires an id type that holds vocab_size - 1");
  constexpr std::size_t ctx = Cfg.context_length;
  constexpr std::size_t longest = N + MaxNew - 1;
  check_workspace_capacity<Capacity, MaxNew == 0 ? 0 : (longest < ctx ? longest : ctx)>();
  using ids = result<std::array<I, N + MaxNew>>;
  if (const std::size_t bad = first_bad_id<Cfg.vocab_size>(prompt.data(), N); bad < N)
    return refuse_bad_id<ids, Cfg.vocab_size>(prompt.data(), bad);
  return {result_fill, greedy_into<MaxNew, T, Cfg, I, N, Capacity, Policy>{&model, &prompt, &workspace, policy}};
}
}  // namespace detail

/// Greedy decoding with a KV cache: the ids `generate_text_simple<MaxNew>(model, prompt)` gives,
/// bit for bit the same logits at every step, at the cost of one token per step instead of the
/// whole sequence. The prompt (its last context_length ids) is run once; each new id then runs
/// alone against the cached keys and values. Past context_length ids the book's crop shifts
/// every position, so from there each step runs the last context_length ids afresh (a slide).
/// Every call starts from its prompt: one workspace serves any number of calls. A prompt id
/// outside the vocabulary is errc::id_out_of_range, in every build (in constant evaluation, a
/// compile error), and the workspace is left as it was.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
constexpr result<std::array<I, N + MaxNew>> generate(const gpt_model<T, Cfg>& model, const std::array<I, N>& prompt,
                                                     gpt_workspace<T, Cfg, Capacity>& workspace) noexcept {
  return detail::generate_greedy<MaxNew>(model, prompt, workspace, detail::serial{});
}

/// generate<MaxNew>(model, prompt, workspace) with the work split between pool's threads
/// (nn/thread_pool.hpp): the same ids, and the same logits bit for bit, for every thread count.
/// The same error values. Run time only.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
result<std::array<I, N + MaxNew>> generate(const gpt_model<T, Cfg>& model, const std::array<I, N>& prompt,
                                           gpt_workspace<T, Cfg, Capacity>& workspace, thread_pool& pool) noexcept {
  return detail::generate_greedy<MaxNew>(model, prompt, workspace, detail::parallel<thread_pool>{&pool});
}

/// The book's generate_text_simple: MaxNew times, the logits of the last position of the last
/// context_length ids, softmax, and the argmax appended. A prompt of N ids gives N + MaxNew ids.
///
/// It runs generate() with a workspace of its own, a local of min(N + MaxNew - 1,
/// context_length) tokens (GPT-2 124M: 72 KiB per token); past STATIC_ATTENTION_STACK_LIMIT
/// that is a compile error that says to call generate() with a static or heap workspace. A
/// prompt id outside the vocabulary is a compile error in constant evaluation; at run time the
/// prompt comes back followed by ids no vocabulary holds (-1, or the largest value of an
/// unsigned I): generate() reports it as an error value.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr std::array<I, N + MaxNew> generate_text_simple(const gpt_model<T, Cfg>& model,
                                                         const std::array<I, N>& prompt) noexcept {
  constexpr std::size_t longest = N + MaxNew - 1;
  constexpr std::size_t capacity = MaxNew == 0 ? 1 : (longest < Cfg.context_length ? longest : Cfg.context_length);
  detail::check_stack<sizeof(gpt_workspace<T, Cfg, capacity>),
                      detail::instead_generate_model_prompt_static_workspace>();
  gpt_workspace<T, Cfg, capacity> workspace;
  if (auto ids = generate<MaxNew>(model, prompt, workspace)) return *ids;
  std::array<I, N + MaxNew> refused{};
  for (std::size_t i = 0; i < N + MaxNew; ++i) refused[i] = i < N ? prompt[i] : detail::no_id<I>;
  return refused;
}

}  // namespace static_attention

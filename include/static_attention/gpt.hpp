// The book's GPT (chapter 4): configuration, model, PyTorch's initialisation and greedy
// generation, with every shape in the types.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <utility>

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>

#include <static_attention/dropout.hpp>
#include <static_attention/elementwise.hpp>
#include <static_attention/embedding.hpp>
#include <static_attention/kv_cache.hpp>
#include <static_attention/layer_norm.hpp>
#include <static_attention/matmul.hpp>
#include <static_attention/model.hpp>
#include <static_attention/random.hpp>
#include <static_attention/softmax.hpp>
#include <static_attention/torch_init.hpp>
#include <static_attention/transformer_block.hpp>

namespace static_attention {

/// The book's GPT configuration, as a structural type (a template argument of gpt_model). The
/// dropout rate is a run-time member of the model (`gpt_model::set_drop_rate`).
struct gpt_config {
  std::size_t vocab_size;
  std::size_t context_length;
  std::size_t emb_dim;
  std::size_t n_heads;
  std::size_t n_layers;
  bool qkv_bias;
};

/// GPT_CONFIG_124M: GPT-2 small's shapes.
inline constexpr gpt_config gpt2_124m{50257, 1024, 768, 12, 12, false};

namespace detail {
template <class Block, std::size_t>
struct block_at {
  using type = Block;
};
template <class Block, std::size_t... I>
auto repeat_blocks(std::index_sequence<I...>) -> boost::hana::tuple<typename block_at<Block, I>::type...>;

// Training-mode fold step: each block applied with the generator.
template <class G>
struct apply_block_training {
  G* gen;
  template <class X, class Block>
  constexpr X operator()(const X& x, const Block& block) const noexcept {
    return block(x, *gen);
  }
};

// init_like_torch on each block, in order.
struct init_block {
  torch_generator* gen;
  template <class Block>
  constexpr void operator()(Block& block) const noexcept {
    init_like_torch(block, *gen);
  }
};

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
  /// One row of attention weights.
  matrix<T, 1, Capacity> scores;

  /// Tokens held (the position of the next one).
  constexpr std::size_t length() const noexcept { return caches[0].length; }
  /// Forgets every token.
  constexpr void clear() noexcept {
    for (auto& cache : caches) cache.clear();
  }
};

namespace detail {
// One block on the N tokens in workspace.x (N <= chunk), in place, with the block's cache:
// the operations of transformer_block::operator()(x, cache), in the same order, on the
// workspace's buffers instead of locals.
template <std::size_t N, class T, std::size_t D, std::size_t Heads, std::size_t Ctx, bool QkvBias, class Workspace,
          std::size_t Capacity>
constexpr void block_step(const transformer_block<T, D, Heads, Ctx, QkvBias>& block, kv_cache<T, Capacity, D>& cache,
                          Workspace& ws) noexcept {
  T* x = ws.x.elems;
  T* normed = ws.normed.elems;
  T* queries = ws.queries.elems;
  T* context = ws.context.elems;
  const auto& att = block.att;
  // x + att(norm1(x))
  for (std::size_t i = 0; i < N; ++i) block.norm1.normalize_row(x + i * D, normed + i * D);
  const std::size_t first = cache.length;
  T* values = cache.values.elems + first * D;
  matmul_kernel<T, N, D, D>(normed, att.W_query.elems, queries);
  matmul_kernel<T, N, D, D>(normed, att.W_key.elems, context);  // the keys, before the cache's columns
  matmul_kernel<T, N, D, D>(normed, att.W_value.elems, values);
  if constexpr (QkvBias) {
    add_bias_rows<T, N, D>(queries, att.b_query);
    add_bias_rows<T, N, D>(context, att.b_key);
    add_bias_rows<T, N, D>(values, att.b_value);
  }
  store_keys(cache, first, N, context);
  for (std::size_t k = 0; k < N * D; ++k) context[k] = T{};
  attend_rows<T, D, Heads, Capacity, N>(queries, cache, first, context, ws.scores.elems);
  cache.length = first + N;
  matmul_kernel<T, N, D, D>(context, att.W_out.elems, normed);
  add_bias_rows<T, N, D>(normed, att.b_out);
  for (std::size_t k = 0; k < N * D; ++k) x[k] = x[k] + normed[k];
  // x + ff(norm2(x))
  for (std::size_t i = 0; i < N; ++i) block.norm2.normalize_row(x + i * D, normed + i * D);
  T* hidden = ws.hidden.elems;
  matmul_kernel<T, N, D, 4 * D>(normed, block.ff.expand.weight.elems, hidden);
  add_bias_rows<T, N, 4 * D>(hidden, block.ff.expand.bias);
  gelu_in_place(hidden, N * 4 * D);
  matmul_kernel<T, N, 4 * D, D>(hidden, block.ff.project.weight.elems, normed);
  add_bias_rows<T, N, D>(normed, block.ff.project.bias);
  for (std::size_t k = 0; k < N * D; ++k) x[k] = x[k] + normed[k];
}

// block_step on each block with its own cache, in order.
template <std::size_t N, class Workspace>
struct step_blocks {
  Workspace* ws;
  std::size_t* index;
  template <class Block>
  constexpr void operator()(const Block& block) const noexcept {
    block_step<N>(block, ws->caches[*index], *ws);
    ++*index;
  }
};
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
  static_assert(Cfg.vocab_size > 0 && Cfg.context_length > 0 && Cfg.emb_dim > 0 && Cfg.n_layers > 0,
                "gpt_model<T, Cfg> requires a vocabulary, a context length, an embedding and at least one layer");

  /// The configuration.
  static constexpr gpt_config config = Cfg;
  /// The element type.
  using value_type = T;
  /// One transformer block.
  using block_type = transformer_block<T, Cfg.emb_dim, Cfg.n_heads, Cfg.context_length, Cfg.qkv_bias>;
  /// The blocks: a Hana tuple of n_layers block_type, a model for model.hpp's folds.
  using blocks_type = decltype(detail::repeat_blocks<block_type>(std::make_index_sequence<Cfg.n_layers>{}));

  /// Every parameter, as `sum(p.numel() for p in model.parameters())` counts them.
  static constexpr std::size_t parameter_count = [] {
    constexpr std::size_t d = Cfg.emb_dim;
    constexpr std::size_t attention = 4 * d * d + d + (Cfg.qkv_bias ? 3 * d : 0);
    constexpr std::size_t ff = d * 4 * d + 4 * d + 4 * d * d + d;
    constexpr std::size_t block = attention + ff + 4 * d;
    return Cfg.vocab_size * d + Cfg.context_length * d + Cfg.n_layers * block + 2 * d + d * Cfg.vocab_size;
  }();

  /// `tok_emb`: vocab_size x emb_dim.
  embedding<T, Cfg.vocab_size, Cfg.emb_dim> tok_emb;
  /// `pos_emb`: context_length x emb_dim.
  embedding<T, Cfg.context_length, Cfg.emb_dim> pos_emb;
  /// `trf_blocks`.
  blocks_type trf_blocks;
  /// `final_norm`.
  layer_norm<T, Cfg.emb_dim> final_norm;
  /// `out_head.weight` transposed: emb_dim x vocab_size (x @ W; no bias).
  matrix<T, Cfg.emb_dim, Cfg.vocab_size> out_head;
  /// `drop_emb`'s probability (training mode only; see set_drop_rate).
  T drop_rate{};

  /// The dropout probability of every dropout in the model (the book's cfg["drop_rate"]):
  /// embeddings, attention weights and shortcuts. Used only in training mode.
  constexpr void set_drop_rate(T p) noexcept {
    drop_rate = detail::checked_dropout_p(p);
    boost::hana::for_each(trf_blocks, set_block_drop_rate{drop_rate});
  }

  /// Evaluation mode: N ids -> N x vocab_size logits.
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, Cfg.vocab_size> operator()(const std::array<I, N>& ids) const noexcept {
    return head(hidden(ids));
  }

  /// Training mode: dropout drawn from gen (embeddings, then each block).
  template <token_id I, std::size_t N, random_source G>
  constexpr matrix<T, N, Cfg.vocab_size> operator()(const std::array<I, N>& ids, G& gen) const noexcept {
    const auto x = dropout(embed(ids), drop_rate, gen);
    return head(final_norm(boost::hana::fold_left(trf_blocks, x, detail::apply_block_training<G>{&gen})));
  }

  /// Evaluation mode for a batch: B x N ids -> B x N x vocab_size logits.
  template <token_id I, std::size_t B, std::size_t N>
  constexpr tensor<T, B, N, Cfg.vocab_size> operator()(const matrix<I, B, N>& ids) const noexcept {
    return detail::per_sequence<T, Cfg.vocab_size>(*this, ids);
  }

  /// The final-norm hidden states (before out_head): N ids -> N x emb_dim.
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, Cfg.emb_dim> hidden(const std::array<I, N>& ids) const noexcept {
    const auto x = embed(ids);
    if constexpr (N <= Cfg.context_length)  // else embed has said why: one error, not two
      return final_norm(forward(trf_blocks, x));
    else
      return x;
  }

  /// The final-norm hidden states of N ids that follow the workspace's tokens (positions
  /// length() .. length() + N - 1), appending them to its caches: the rows hidden() gives for
  /// the whole sequence, bit for bit. The work runs in the workspace's buffers, a chunk of ids
  /// at a time; only the result is on the stack.
  template <token_id I, std::size_t N, std::size_t Capacity>
  constexpr matrix<T, N, Cfg.emb_dim> hidden(const std::array<I, N>& ids,
                                             gpt_workspace<T, Cfg, Capacity>& workspace) const noexcept {
    matrix<T, N, Cfg.emb_dim> out;
    run_chunks<I, N>(ids.data(), workspace, out.elems, 0);
    return out;
  }

  /// Runs N ids through the workspace (as hidden(ids, workspace)) and returns only the last
  /// one's final-norm hidden state: what the next id depends on. Stack use does not grow with N.
  template <token_id I, std::size_t N, std::size_t Capacity>
  constexpr matrix<T, 1, Cfg.emb_dim> prefill(const std::array<I, N>& ids,
                                              gpt_workspace<T, Cfg, Capacity>& workspace) const noexcept {
    matrix<T, 1, Cfg.emb_dim> last;
    run_chunks<I, N>(ids.data(), workspace, last.elems, N - 1);
    return last;
  }

  /// out_head: h out_head, N x emb_dim -> N x vocab_size.
  template <std::size_t N>
  constexpr matrix<T, N, Cfg.vocab_size> head(const matrix<T, N, Cfg.emb_dim>& h) const noexcept {
    return matmul(h, out_head);
  }

  /// tok_emb(ids) + pos_emb(arange(N)).
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, Cfg.emb_dim> embed(const std::array<I, N>& ids) const noexcept {
    detail::check_gpt_tokens<N, Cfg.context_length>();
    return tok_emb(ids) + pos_emb.template rows<N>();
  }

 private:
  // N ids through the workspace in chunks; the final-norm rows from `keep_from` on are
  // written to out (row keep_from first).
  template <class I, std::size_t N, std::size_t Capacity>
  constexpr void run_chunks(const I* ids, gpt_workspace<T, Cfg, Capacity>& ws, T* out,
                            std::size_t keep_from) const noexcept {
    static_assert(N > 0, "gpt_model: at least one id");
    static_assert(tokens_within_context_length<N, Capacity>,
                  "gpt_model::hidden(ids, workspace) requires N <= the workspace's capacity");
    if (!detail::check_cache_room<Capacity>(ws.length(), N)) return;
    constexpr std::size_t chunk = gpt_workspace<T, Cfg, Capacity>::chunk;
    constexpr std::size_t whole = (N - 1) / chunk;  // whole chunks before the last
    constexpr std::size_t last = N - whole * chunk;
    for (std::size_t c = 0; c < whole; ++c) run_chunk<chunk>(ids + c * chunk, ws, out, keep_from, c * chunk);
    run_chunk<last>(ids + whole * chunk, ws, out, keep_from, whole * chunk);
  }

  template <std::size_t Count, class I, std::size_t Capacity>
  constexpr void run_chunk(const I* ids, gpt_workspace<T, Cfg, Capacity>& ws, T* out, std::size_t keep_from,
                           std::size_t offset) const noexcept {
    constexpr std::size_t d = Cfg.emb_dim;
    const std::size_t position = ws.length();
    for (std::size_t i = 0; i < Count; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);  // a negative id wraps to a huge one
      detail::check_index<Cfg.vocab_size>(id);
      detail::check_index<Cfg.context_length>(position + i);
      for (std::size_t j = 0; j < d; ++j)
        ws.x.elems[i * d + j] = tok_emb.weight.elems[id * d + j] + pos_emb.weight.elems[(position + i) * d + j];
    }
    std::size_t index = 0;
    boost::hana::for_each(trf_blocks, detail::step_blocks<Count, gpt_workspace<T, Cfg, Capacity>>{&ws, &index});
    for (std::size_t i = 0; i < Count; ++i)
      if (offset + i >= keep_from) final_norm.normalize_row(ws.x.elems + i * d, out + (offset + i - keep_from) * d);
  }

  struct set_block_drop_rate {
    T p;
    constexpr void operator()(block_type& block) const noexcept {
      block.drop_rate = p;
      block.att.dropout_p = p;
    }
  };
};

/// Fills model in place as `torch.manual_seed(seed); GPTModel(cfg)` does, drawing from gen (made
/// with that seed) in module-creation order: tok_emb, pos_emb, each block (att, ff), final_norm,
/// out_head. Works on a model in static storage; nothing is copied.
template <torch_real T, gpt_config Cfg>
constexpr void init_like_torch(gpt_model<T, Cfg>& model, torch_generator& gen) noexcept {
  init_like_torch(model.tok_emb, gen);
  init_like_torch(model.pos_emb, gen);
  boost::hana::for_each(model.trf_blocks, detail::init_block{&gen});
  init_like_torch(model.final_norm, gen);
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

/// Greedy decoding with a KV cache: the ids `generate_text_simple<MaxNew>(model, prompt)` gives,
/// bit for bit the same logits at every step, at the cost of one token per step instead of the
/// whole sequence. The prompt (its last context_length ids) is run once; each new id then runs
/// alone against the cached keys and values. Past context_length ids the book's crop shifts
/// every position, so from there each step runs the last context_length ids afresh (a slide).
/// Every call starts from its prompt: one workspace serves any number of calls.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
constexpr std::array<I, N + MaxNew> generate(const gpt_model<T, Cfg>& model, const std::array<I, N>& prompt,
                                             gpt_workspace<T, Cfg, Capacity>& workspace) noexcept {
  static_assert(N > 0, "generate(model, prompt, workspace) requires at least one prompt id");
  static_assert(Cfg.vocab_size - 1 <= static_cast<unsigned long long>(std::numeric_limits<I>::max()),
                "generate(model, prompt, workspace) requires an id type that holds vocab_size - 1");
  constexpr std::size_t ctx = Cfg.context_length;
  constexpr std::size_t longest = N + MaxNew - 1;  // the longest sequence a step reads
  detail::check_workspace_capacity<Capacity, MaxNew == 0 ? 0 : (longest < ctx ? longest : ctx)>();
  std::array<I, N + MaxNew> ids{};
  for (std::size_t i = 0; i < N; ++i) ids[i] = prompt[i];
  if constexpr (MaxNew > 0) {
    constexpr std::size_t prompt_used = N < ctx ? N : ctx;
    workspace.clear();
    ids[N] = detail::next_id<I>(model, model.prefill(detail::window<prompt_used>(ids, N - prompt_used), workspace));
    for (std::size_t len = N + 1; len < N + MaxNew; ++len) {
      if (len <= ctx) {
        ids[len] = detail::next_id<I>(model, model.hidden(detail::window<1>(ids, len - 1), workspace));
      } else if constexpr (longest > ctx) {  // slide: positions shift, so nothing cached is valid
        workspace.clear();
        ids[len] = detail::next_id<I>(model, model.prefill(detail::window<ctx>(ids, len - ctx), workspace));
      }
    }
  }
  return ids;
}

/// The book's generate_text_simple: MaxNew times, the logits of the last position of the last
/// context_length ids, softmax, and the argmax appended. A prompt of N ids gives N + MaxNew ids.
///
/// It runs generate() with a workspace of its own, a local of min(N + MaxNew - 1,
/// context_length) tokens (GPT-2 124M: 72 KiB per token): for long generations with a large
/// model, call generate() with a static or heap workspace instead.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr std::array<I, N + MaxNew> generate_text_simple(const gpt_model<T, Cfg>& model,
                                                         const std::array<I, N>& prompt) noexcept {
  constexpr std::size_t longest = N + MaxNew - 1;
  constexpr std::size_t capacity = MaxNew == 0 ? 1 : (longest < Cfg.context_length ? longest : Cfg.context_length);
  gpt_workspace<T, Cfg, capacity> workspace;
  return generate<MaxNew>(model, prompt, workspace);
}

}  // namespace static_attention

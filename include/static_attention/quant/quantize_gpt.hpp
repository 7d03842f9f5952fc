// SPDX-License-Identifier: BSL-1.0
// int8 post-training quantization of the book's GPT at compile time: calibrate(), quantize() and
// the quantized_gpt they give. The attention of each block is a quantized_multi_head_attention
// (quantize_attention.hpp); LayerNorm and GELU are integer-only (quant/detail/quant_nonlinear.hpp).
// See docs/quantization.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include <boost/hana/for_each.hpp>

#include <static_attention/core/detail/index_check.hpp>
#include <static_attention/core/matmul.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/token_ids.hpp>
#include <static_attention/quant/detail/quant_core.hpp>
#include <static_attention/quant/detail/quant_nonlinear.hpp>
#include <static_attention/quant/quantize_attention.hpp>
#include <static_attention/quant/quantized_kv_cache.hpp>

namespace static_attention {

/// What calibration records for one transformer block.
struct block_ranges {
  /// The attention's activations; `attention.input` is norm1's output.
  attention_ranges attention;
  /// norm2's output (the feed-forward block's input).
  value_range ff_input;
  /// ff.expand's output, before GELU.
  value_range hidden;
  friend constexpr bool operator==(const block_ranges&, const block_ranges&) = default;
};

/// What calibration records for a GPT of Layers blocks.
template <std::size_t Layers>
struct gpt_ranges {
  /// The residual stream: the embeddings and the stream after every shortcut add.
  value_range residual;
  /// Each block's activations.
  std::array<block_ranges, Layers> blocks{};
  /// final_norm's output (out_head's input).
  value_range final_norm;
  friend constexpr bool operator==(const gpt_ranges&, const gpt_ranges&) = default;
};

namespace detail {
/// The largest int16 residual code: symmetric, so -code is representable.
inline constexpr std::int32_t residual_max = 32767;

/// acc times a fixed multiplier as an int16 residual code, saturated to +-32767.
constexpr std::int32_t requantize_residual(std::int32_t acc, fixed_multiplier m) noexcept {
  const std::int32_t v = scale_saturated(acc, m);
  return v < -residual_max ? -residual_max : (v > residual_max ? residual_max : v);
}

/// a + b saturated to +-32767 (|a|, |b| <= 32767: the int32 sum cannot overflow).
constexpr std::int16_t add_residual(std::int32_t a, std::int32_t b) noexcept {
  const std::int32_t sum = a + b;
  return static_cast<std::int16_t>(sum < -residual_max ? -residual_max : (sum > residual_max ? residual_max : sum));
}
}  // namespace detail

/// Per-channel requantization of int32 accumulators to the int16 residual stream (zero point 0):
/// multiplier j is s_x s_wj / s_residual.
template <std::size_t Out>
struct residual_requantizer {
  /// Channel j's fixed_multiplier: {multiplier j, shift j}.
  matrix<std::int32_t, 1, Out> multiplier;
  matrix<std::int8_t, 1, Out> shift;

  /// Accumulator j as a residual code.
  constexpr std::int32_t operator()(std::int32_t acc, std::size_t j) const noexcept {
    return detail::requantize_residual(acc, {multiplier.elems[j], shift.elems[j]});
  }

  friend constexpr bool operator==(const residual_requantizer&, const residual_requantizer&) = default;
};

/// An embedding table with int8 rows, symmetric per row, and each row's multiplier to the
/// residual stream's scale (s_row / s_residual).
template <std::size_t Rows, std::size_t D>
struct quantized_embedding {
  /// int8 codes, Rows x D (nn.Embedding's layout).
  matrix<std::int8_t, Rows, D> weight;
  /// Row r's fixed_multiplier to the residual scale: {multiplier r, shift r}.
  matrix<std::int32_t, 1, Rows> multiplier;
  matrix<std::int8_t, 1, Rows> shift;

  /// Feature j of row r as a residual code.
  constexpr std::int32_t residual(std::size_t r, std::size_t j) const noexcept {
    return detail::requantize_residual(weight.elems[r * D + j], {multiplier.elems[r], shift.elems[r]});
  }

  friend constexpr bool operator==(const quantized_embedding&, const quantized_embedding&) = default;
};

/// What one quantized_transformer_block::step works in besides its cache and the residual
/// stream: up to MaxRows rows of LayerNorm codes and attention accumulators, the attention's
/// buffers, and one row of the feed-forward block's hidden codes and accumulators.
template <std::size_t MaxRows, std::size_t D, std::size_t Capacity>
struct quantized_block_buffers {
  /// norm1's, then norm2's output codes.
  matrix<std::int8_t, MaxRows, D> normed;
  /// The attention's output accumulators.
  matrix<std::int32_t, MaxRows, D> attended;
  /// The attention's queries, context codes, scores and probabilities.
  quantized_attention_buffers<MaxRows, D, Capacity> attention;
  /// One token's GELU codes, and expand's (then project's) accumulators.
  matrix<std::int8_t, 1, 4 * D> hidden;
  matrix<std::int32_t, 1, 4 * D> acc;
};

/// One transformer block, int8 with an int16 residual stream:
///   x += requant16(att(norm1(x))), x += requant16(project(gelu(expand(norm2(x))))).
template <std::size_t D, std::size_t NumHeads, std::size_t ContextLength>
struct quantized_transformer_block {
  /// int16 residual codes in, int8 codes out.
  quantized_layer_norm<D> norm1;
  /// The attention on norm1's codes (its `input` is norm1's output; its output projection's
  /// accumulators go to the stream through att_residual, so its output_scale goes unused).
  quantized_multi_head_attention<D, D, NumHeads, ContextLength> att;
  /// att's output accumulators to the residual stream.
  residual_requantizer<D> att_residual;
  /// Before the feed-forward block.
  quantized_layer_norm<D> norm2;
  /// ff.expand: int8 weights per channel; its accumulators requantized to int8, the GELU's input.
  quantized_linear<D, 4 * D> expand;
  requantizer<4 * D> expand_requant;
  /// GELU, a 256-entry table.
  quantized_gelu gelu;
  /// ff.project, its accumulators to the residual stream.
  quantized_linear<4 * D, D> project;
  residual_requantizer<D> project_residual;

  /// The block on N rows of residual codes, in place: step() with a cache and buffers of its own.
  template <std::size_t N>
  constexpr void operator()(matrix<std::int16_t, N, D>& x) const noexcept {
    if constexpr (N > 0) {
      quantized_kv_cache<N, D> cache;
      quantized_block_buffers<N, D, N> buffers;
      step<N>(x.elems, cache, buffers);
    }
  }

  /// The block on Rows tokens (residual codes at x, Rows x D, in place) after the cache's
  /// `length` tokens, appending their keys and values: the rows operator() gives for the whole
  /// sequence, bit for bit. The caller checks length + Rows <= Capacity.
  template <std::size_t Rows, std::size_t MaxRows, std::size_t Capacity>
  constexpr void step(std::int16_t* x, quantized_kv_cache<Capacity, D>& cache,
                      quantized_block_buffers<MaxRows, D, Capacity>& buffers) const noexcept {
    std::int8_t* normed = buffers.normed.elems;
    std::int32_t* attended = buffers.attended.elems;
    for (std::size_t i = 0; i < Rows; ++i) norm1.normalize_row(x + i * D, normed + i * D);
    att.template append_integer<Rows>(normed, cache, buffers.attention, attended);
    for (std::size_t i = 0; i < Rows; ++i)
      for (std::size_t j = 0; j < D; ++j)
        x[i * D + j] = detail::add_residual(x[i * D + j], att_residual(attended[i * D + j], j));
    for (std::size_t i = 0; i < Rows; ++i) norm2.normalize_row(x + i * D, normed + i * D);
    std::int8_t* hidden = buffers.hidden.elems;
    std::int32_t* acc = buffers.acc.elems;
    for (std::size_t i = 0; i < Rows; ++i) {
      expand.accumulate(normed + i * D, acc);
      for (std::size_t j = 0; j < 4 * D; ++j) hidden[j] = gelu(expand_requant(acc[j], j));
      project.accumulate(hidden, acc);
      for (std::size_t j = 0; j < D; ++j)
        x[i * D + j] = detail::add_residual(x[i * D + j], project_residual(acc[j], j));
    }
  }

  friend constexpr bool operator==(const quantized_transformer_block&, const quantized_transformer_block&) = default;
};

/// Everything a cached forward pass of quantized_gpt<Cfg> keeps between calls and uses on the
/// way, as gpt_workspace is for gpt_model: one quantized_kv_cache of Capacity tokens per block,
/// the int16 residual stream of one chunk of up to `chunk` tokens and the buffers a block step
/// works in. The caller owns it (a `static`, a section of its choice, or for a small model a
/// local of a constexpr function): a forward pass or decode step needs no heap and little
/// stack. Capacity <= context_length.
template <gpt_config Cfg, std::size_t Capacity>
struct quantized_gpt_workspace {
  static_assert(Capacity > 0 && Capacity <= Cfg.context_length,
                "quantized_gpt_workspace<Cfg, Capacity> requires 0 < Capacity <= context_length");
  /// The most tokens it holds.
  static constexpr std::size_t capacity = Capacity;
  /// Tokens per chunk of a prefill.
  static constexpr std::size_t chunk = Capacity < 128 ? Capacity : 128;
  /// Block i's centred key and value codes.
  std::array<quantized_kv_cache<Capacity, Cfg.emb_dim>, Cfg.n_layers> caches{};
  /// The residual stream (int16 codes) of the chunk's tokens.
  matrix<std::int16_t, chunk, Cfg.emb_dim> x;
  /// What a block step works in.
  quantized_block_buffers<chunk, Cfg.emb_dim, Capacity> buffers;

  /// Tokens held (the position of the next one).
  constexpr std::size_t length() const noexcept { return caches[0].length; }
  /// Forgets every token.
  constexpr void clear() noexcept {
    for (auto& cache : caches) cache.clear();
  }
};

/// The int8 form of gpt_model<float, Cfg> (evaluation mode), as quantize() makes it. A literal
/// type: a constexpr variable, a static_assert operand, a `static const` in flash.
///
///   ids -> int8 embeddings (per row) summed into an int16 residual stream (one symmetric scale)
///   -> each block: integer LayerNorm -> int8 attention (integer softmax) -> requantized to int16
///   and added; integer LayerNorm -> int8 expand -> GELU table -> int8 project -> added
///   -> integer final LayerNorm -> out_head: int32 accumulators -> float logits, one product by a
///   per-channel scale.
template <gpt_config Cfg>
struct quantized_gpt {
  /// The configuration.
  static constexpr gpt_config config = Cfg;
  /// What it gives: float logits, like the model it was quantized from.
  using value_type = float;
  /// One block.
  using block_type = quantized_transformer_block<Cfg.emb_dim, Cfg.n_heads, Cfg.context_length>;

  /// The residual stream's scale: real = residual_scale * int16 code.
  float residual_scale = 1.0f;
  /// `tok_emb` and `pos_emb`, int8 per row.
  quantized_embedding<Cfg.vocab_size, Cfg.emb_dim> tok_emb;
  quantized_embedding<Cfg.context_length, Cfg.emb_dim> pos_emb;
  /// `trf_blocks`.
  std::array<block_type, Cfg.n_layers> blocks{};
  /// `final_norm`.
  quantized_layer_norm<Cfg.emb_dim> final_norm;
  /// `out_head`: int8 weights per output channel (vocab_size x emb_dim), no bias.
  quantized_linear<Cfg.emb_dim, Cfg.vocab_size> out_head;
  /// Accumulator j to a float logit: s_final_norm s_head_j, rounded to float once.
  matrix<float, 1, Cfg.vocab_size> output_scale;

  /// N ids -> N x vocab_size logits (float), comparable with the float model's.
  template <token_id I, std::size_t N>
  constexpr matrix<float, N, Cfg.vocab_size> operator()(const std::array<I, N>& ids) const noexcept {
    return dequantize_output(forward_integer(ids));
  }

  /// A batch: B x N ids -> B x N x vocab_size logits.
  template <token_id I, std::size_t B, std::size_t N>
  constexpr tensor<float, B, N, Cfg.vocab_size> operator()(const matrix<I, B, N>& ids) const noexcept {
    return detail::per_sequence<float, Cfg.vocab_size>(*this, ids);
  }

  /// tok_emb(ids) + pos_emb(arange(N)) as int16 residual codes.
  template <token_id I, std::size_t N>
  constexpr matrix<std::int16_t, N, Cfg.emb_dim> embed(const std::array<I, N>& ids) const noexcept {
    detail::check_gpt_tokens<N, Cfg.context_length>();
    constexpr std::size_t d = Cfg.emb_dim;
    matrix<std::int16_t, N, d> x;
    for (std::size_t i = 0; i < N; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);  // a negative id wraps to a huge one
      detail::check_index<Cfg.vocab_size>(id);
      if (id >= Cfg.vocab_size) continue;
      for (std::size_t j = 0; j < d; ++j)
        x.elems[i * d + j] = detail::add_residual(tok_emb.residual(id, j), pos_emb.residual(i, j));
    }
    return x;
  }

  /// The forward pass, integer-only: out_head's int32 accumulators (logit j is accumulator j
  /// times output_scale j).
  template <token_id I, std::size_t N>
  constexpr matrix<std::int32_t, N, Cfg.vocab_size> forward_integer(const std::array<I, N>& ids) const noexcept {
    matrix<std::int32_t, N, Cfg.vocab_size> out;
    if constexpr (N <= Cfg.context_length) {  // else embed has said why
      constexpr std::size_t d = Cfg.emb_dim;
      matrix<std::int16_t, N, d> x = embed(ids);
      for (const auto& block : blocks) block(x);
      std::int8_t normed[d]{};
      for (std::size_t i = 0; i < N; ++i) {
        final_norm.normalize_row(x.elems + i * d, normed);
        out_head.accumulate(normed, out.elems + i * Cfg.vocab_size);
      }
    } else {
      (void)embed(ids);
    }
    return out;
  }

  /// The final-norm codes (int8, what out_head takes) of N ids that follow the workspace's
  /// tokens (positions length() .. length() + N - 1), appending them to its caches: the codes
  /// forward_integer computes for the whole sequence, bit for bit, a chunk of ids at a time in
  /// the workspace's buffers. An id outside the vocabulary (errc::id_out_of_range; in constant
  /// evaluation, a compile error) or more tokens than the workspace has room for
  /// (errc::capacity_exceeded) is an error value, in every build, the workspace left as it was.
  template <token_id I, std::size_t N, std::size_t Capacity>
  constexpr result<matrix<std::int8_t, N, Cfg.emb_dim>> hidden(
      const std::array<I, N>& ids, quantized_gpt_workspace<Cfg, Capacity>& workspace) const noexcept {
    static_assert(N > 0 && N <= Capacity, "quantized_gpt::hidden(ids, workspace) requires 0 < N <= capacity");
    if (auto admitted = admit("hidden(ids, workspace)", ids.data(), N, workspace); !admitted) return admitted.error();
    return {detail::result_fill, chunks_into<I, Capacity>{this, ids.data(), N, &workspace, 0}};
  }

  /// Runs N ids through the workspace (as hidden(ids, workspace)) and returns only the last
  /// one's final-norm codes: what the next id depends on. The same error values.
  template <token_id I, std::size_t N, std::size_t Capacity>
  constexpr result<matrix<std::int8_t, 1, Cfg.emb_dim>> prefill(
      const std::array<I, N>& ids, quantized_gpt_workspace<Cfg, Capacity>& workspace) const noexcept {
    static_assert(N > 0 && N <= Capacity, "quantized_gpt::prefill(ids, workspace) requires 0 < N <= capacity");
    if (auto admitted = admit("prefill(ids, workspace)", ids.data(), N, workspace); !admitted) return admitted.error();
    return {detail::result_fill, chunks_into<I, Capacity>{this, ids.data(), N, &workspace, N - 1}};
  }

  /// prefill for ids whose count is known only at run time: the last id's final-norm codes, bit
  /// for bit what prefill(std::array) gives. No ids is errc::invalid_argument; the other errors
  /// as prefill's, the workspace left as it was.
  template <token_id I, std::size_t Extent, std::size_t Capacity>
  constexpr result<matrix<std::int8_t, 1, Cfg.emb_dim>> prefill(
      std::span<const I, Extent> ids, quantized_gpt_workspace<Cfg, Capacity>& workspace) const noexcept {
    if (ids.empty()) return make_error(errc::invalid_argument, "prefill(ids, workspace): no ids");
    if (auto admitted = admit("prefill(ids, workspace)", ids.data(), ids.size(), workspace); !admitted)
      return admitted.error();
    return {detail::result_fill, chunks_into<I, Capacity>{this, ids.data(), ids.size(), &workspace, ids.size() - 1}};
  }

  /// prefill(span, workspace) under the name and arguments the shared decode loop
  /// (detail::decode_steps) calls: the int8 model runs on one thread, so the work-sharing policy
  /// (detail::serial, or a pool's) does not change what it does.
  template <token_id I, std::size_t Extent, std::size_t Capacity, class Policy>
  constexpr result<matrix<std::int8_t, 1, Cfg.emb_dim>> prefill_with(std::span<const I, Extent> ids,
                                                                     quantized_gpt_workspace<Cfg, Capacity>& workspace,
                                                                     const Policy&) const noexcept {
    return prefill(ids, workspace);
  }

  /// The check hidden() and prefill() make before they touch the workspace: every id in the
  /// vocabulary, and room for count more tokens.
  template <token_id I, std::size_t Capacity>
  constexpr result<void> admit(std::string_view call, const I* ids, std::size_t count,
                               const quantized_gpt_workspace<Cfg, Capacity>& workspace) const noexcept {
    return detail::admit_ids<Cfg.vocab_size, Capacity>(call, ids, count, workspace.length());
  }

  /// out_head on final-norm codes, integer-only: N x emb_dim codes -> N x vocab_size int32
  /// accumulators (the rows forward_integer gives).
  template <std::size_t N>
  constexpr matrix<std::int32_t, N, Cfg.vocab_size> head_integer(
      const matrix<std::int8_t, N, Cfg.emb_dim>& h) const noexcept {
    matrix<std::int32_t, N, Cfg.vocab_size> acc;
    for (std::size_t i = 0; i < N; ++i) out_head.accumulate(h.elems + i * Cfg.emb_dim, acc.elems + i * Cfg.vocab_size);
    return acc;
  }

  /// out_head on final-norm codes: N x emb_dim codes -> N x vocab_size float logits.
  template <std::size_t N>
  constexpr matrix<float, N, Cfg.vocab_size> head(const matrix<std::int8_t, N, Cfg.emb_dim>& h) const noexcept {
    return dequantize_output(head_integer(h));
  }

  /// Accumulators to float logits.
  template <std::size_t N>
  constexpr matrix<float, N, Cfg.vocab_size> dequantize_output(
      const matrix<std::int32_t, N, Cfg.vocab_size>& acc) const noexcept {
    constexpr std::size_t v = Cfg.vocab_size;
    matrix<float, N, v> y;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < v; ++j)
        y.elems[i * v + j] = detail::dequantize_value(acc.elems[i * v + j], output_scale.elems[j]);
    return y;
  }

  friend constexpr bool operator==(const quantized_gpt&, const quantized_gpt&) = default;

 private:
  friend struct detail::decode_access;

  // prefill_with's work without its checks, for the decode loop (detail::decode_steps), whose
  // ids are admitted already: the last id's final-norm codes into `last`, and no result (with
  // its room for an error) on the stack.
  template <class I, std::size_t Capacity, class Policy>
  constexpr void decode_into(const I* ids, std::size_t count, quantized_gpt_workspace<Cfg, Capacity>& workspace,
                             matrix<std::int8_t, 1, Cfg.emb_dim>& last, const Policy&) const noexcept {
    chunks_into<I, Capacity>{this, ids, count, &workspace, count - 1}(last);
  }

  // count admitted ids through the workspace as the filler of a result: whole chunks, then the
  // rest one token at a time (integer arithmetic: the bits do not depend on the split); the
  // final-norm codes of the ids from keep_from on go to rows (row keep_from first).
  template <class I, std::size_t Capacity>
  struct chunks_into {
    const quantized_gpt* model;
    const I* ids;
    std::size_t count;
    quantized_gpt_workspace<Cfg, Capacity>* workspace;
    std::size_t keep_from;
    template <class Rows>
    constexpr void operator()(Rows& rows) const noexcept {
      constexpr std::size_t chunk = quantized_gpt_workspace<Cfg, Capacity>::chunk;
      std::size_t done = 0;
      for (; count - done >= chunk; done += chunk) run_chunk<chunk>(done, rows.elems);
      for (; done < count; ++done) run_chunk<1>(done, rows.elems);
    }
    template <std::size_t Count>
    constexpr void run_chunk(std::size_t offset, std::int8_t* out) const noexcept {
      constexpr std::size_t d = Cfg.emb_dim;
      quantized_gpt_workspace<Cfg, Capacity>& ws = *workspace;
      const std::size_t position = ws.length();
      for (std::size_t i = 0; i < Count; ++i) model->embed_row(ids[offset + i], position + i, ws.x.elems + i * d);
      for (std::size_t l = 0; l < Cfg.n_layers; ++l)
        model->blocks[l].template step<Count>(ws.x.elems, ws.caches[l], ws.buffers);
      for (std::size_t i = 0; i < Count; ++i)
        if (offset + i >= keep_from)
          model->final_norm.normalize_row(ws.x.elems + i * d, out + (offset + i - keep_from) * d);
    }
  };

  // tok_emb[id] + pos_emb[position] as residual codes into out (emb_dim codes); the ids are
  // admitted, position < capacity <= context_length.
  template <class I>
  constexpr void embed_row(I id, std::size_t position, std::int16_t* out) const noexcept {
    const auto row = static_cast<std::size_t>(id);
    for (std::size_t j = 0; j < Cfg.emb_dim; ++j)
      out[j] = detail::add_residual(tok_emb.residual(row, j), pos_emb.residual(position, j));
  }
};

namespace detail {

// Calibration of one block on the float stream x (updated in place, as the float block does).
template <class X, std::size_t Layers>
struct observe_block {
  X* x;
  gpt_ranges<Layers>* ranges;
  std::size_t* index;
  template <class Block>
  constexpr void operator()(const Block& block) const noexcept {
    block_ranges& r = ranges->blocks[*index];
    ++*index;
    const auto context = observe_attention(block.att, block.norm1(*x), r.attention);
    auto attended = matmul(context, block.att.W_out);  // then + b_out, as multi_head_attention adds it
    constexpr std::size_t d = Block::in_features;
    for (std::size_t k = 0; k < X::size; ++k) attended.elems[k] += block.att.b_out.elems[k % d];
    *x = *x + attended;
    ranges->residual.observe_all(*x);
    const auto normed = block.norm2(*x);
    r.ff_input.observe_all(normed);
    auto hidden = block.ff.expand(normed);
    r.hidden.observe_all(hidden);
    gelu_in_place(hidden.elems, hidden.size);
    *x = *x + block.ff.project(hidden);
    ranges->residual.observe_all(*x);
  }
};

// Per-channel multipliers to the residual stream for accumulators of real step input_scale s_wj.
template <std::size_t Out>
constexpr residual_requantizer<Out> make_residual_requantizer(double input_scale, const double (&channel_scale)[Out],
                                                              double residual_scale) noexcept {
  residual_requantizer<Out> r;
  for (std::size_t j = 0; j < Out; ++j) {
    const fixed_multiplier m = quantize_multiplier(input_scale * channel_scale[j] / residual_scale);
    r.multiplier.elems[j] = m.multiplier;
    r.shift.elems[j] = static_cast<std::int8_t>(m.shift);
  }
  return r;
}

// The largest |value| of a matrix.
template <class M>
constexpr double peak_of(const M& m) noexcept {
  double peak = 0.0;
  for (const auto v : m.elems) {
    const double a = abs_d(static_cast<double>(v));
    if (a > peak) peak = a;
  }
  return peak;
}

// An embedding table, int8 symmetric per row, with multipliers to the residual scale.
template <std::size_t Rows, std::size_t D>
constexpr quantized_embedding<Rows, D> quantize_embedding(const embedding<float, Rows, D>& e,
                                                          double residual_scale) noexcept {
  quantized_embedding<Rows, D> q;
  for (std::size_t r = 0; r < Rows; ++r) {
    double peak = 0.0;
    for (std::size_t j = 0; j < D; ++j) {
      const double a = abs_d(static_cast<double>(e.weight.elems[r * D + j]));
      if (a > peak) peak = a;
    }
    const double s = peak > 0.0 ? peak / weight_max : 1.0;
    for (std::size_t j = 0; j < D; ++j)
      q.weight.elems[r * D + j] = static_cast<std::int8_t>(
          clamp_i32(round_away(static_cast<double>(e.weight.elems[r * D + j]) / s), -weight_max, weight_max));
    const fixed_multiplier m = peak > 0.0 ? quantize_multiplier(s / residual_scale) : fixed_multiplier{};
    q.multiplier.elems[r] = m.multiplier;
    q.shift.elems[r] = static_cast<std::int8_t>(m.shift);
  }
  return q;
}

// Quantizes each float block with its ranges, in order.
template <class QBlock, std::size_t Layers>
struct quantize_block {
  std::array<QBlock, Layers>* out;
  const gpt_ranges<Layers>* ranges;
  double residual_scale;
  std::size_t* index;
  template <class Block>
  constexpr void operator()(const Block& block) const noexcept {
    constexpr std::size_t d = Block::in_features;
    const block_ranges& r = ranges->blocks[*index];
    QBlock& q = (*out)[*index];
    ++*index;
    q.norm1 =
        quantize_layer_norm(block.norm1, residual_scale, choose_params(r.attention.input.lo, r.attention.input.hi));
    q.att = ::static_attention::quantize(block.att, r.attention);
    // W_out's channel scales, recovered from the attention's float output scales (s_ctx s_wj).
    double att_scale[d]{};
    for (std::size_t j = 0; j < d; ++j) att_scale[j] = static_cast<double>(q.att.output_scale.elems[j]);
    q.att_residual = make_residual_requantizer(1.0, att_scale, residual_scale);
    const quant_params ff_input = choose_params(r.ff_input.lo, r.ff_input.hi);
    q.norm2 = quantize_layer_norm(block.norm2, residual_scale, ff_input);
    const quant_params hidden = choose_params(r.hidden.lo, r.hidden.hi);
    double expand_scale[4 * d]{};
    q.expand = quantize_linear(block.ff.expand.weight, &block.ff.expand.bias, ff_input, expand_scale);
    q.expand_requant = make_requantizer(ff_input, expand_scale, hidden);
    q.gelu = make_gelu_table(hidden);
    double project_scale[d]{};
    q.project = quantize_linear(block.ff.project.weight, &block.ff.project.bias, q.gelu.output, project_scale);
    q.project_residual =
        make_residual_requantizer(static_cast<double>(q.gelu.output.scale), project_scale, residual_scale);
  }
};

}  // namespace detail

/// Min/max calibration of a float GPT: runs it on each of the B calibration sequences of N token
/// ids (a GPT takes ids, not float matrices: rows of `calibration` are sequences) and records the
/// range of every activation quantize() quantizes. Costly in constant evaluation (B float
/// forward passes): keep its result in a constexpr variable of its own.
template <gpt_config Cfg, token_id I, std::size_t B, std::size_t N>
constexpr gpt_ranges<Cfg.n_layers> calibrate(const gpt_model<float, Cfg>& model,
                                             const matrix<I, B, N>& calibration) noexcept {
  detail::check_gpt_tokens<N, Cfg.context_length>();
  gpt_ranges<Cfg.n_layers> r;
  if constexpr (N <= Cfg.context_length) {
    for (std::size_t b = 0; b < B; ++b) {
      std::array<I, N> ids{};
      for (std::size_t i = 0; i < N; ++i) ids[i] = calibration.elems[b * N + i];
      matrix<float, N, Cfg.emb_dim> x = model.embed(ids);
      r.residual.observe_all(x);
      std::size_t index = 0;
      boost::hana::for_each(model.trf_blocks,
                            detail::observe_block<matrix<float, N, Cfg.emb_dim>, Cfg.n_layers>{&x, &r, &index});
      r.final_norm.observe_all(model.final_norm(x));
    }
  }
  return r;
}

/// Calibration on one sequence of N ids.
template <gpt_config Cfg, token_id I, std::size_t N>
constexpr gpt_ranges<Cfg.n_layers> calibrate(const gpt_model<float, Cfg>& model,
                                             const std::array<I, N>& calibration) noexcept {
  matrix<I, 1, N> ids;
  for (std::size_t i = 0; i < N; ++i) ids.elems[i] = calibration[i];
  return calibrate(model, ids);
}

/// Two calibrations' ranges as one, each range widened to include the other's: calibrate in
/// parts, each a constant evaluation of its own, when one would exceed the compiler's budget
/// (Clang's default takes about three sequences of 8 tokens of the tiny GPT).
template <std::size_t Layers>
constexpr gpt_ranges<Layers> merge_ranges(gpt_ranges<Layers> a, const gpt_ranges<Layers>& b) noexcept {
  a.residual.observe_range(b.residual);
  for (std::size_t l = 0; l < Layers; ++l) {
    attention_ranges& x = a.blocks[l].attention;
    const attention_ranges& y = b.blocks[l].attention;
    x.input.observe_range(y.input);
    x.query.observe_range(y.query);
    x.key.observe_range(y.key);
    x.value.observe_range(y.value);
    x.context.observe_range(y.context);
    a.blocks[l].ff_input.observe_range(b.blocks[l].ff_input);
    a.blocks[l].hidden.observe_range(b.blocks[l].hidden);
  }
  a.final_norm.observe_range(b.final_norm);
  return a;
}

/// Quantizes a float GPT with the ranges of calibrate(): every linear layer int8 per output
/// channel with int32 biases; int8 activations per tensor; an int16 residual stream of one
/// symmetric scale, wide enough for the calibration's stream and for any embedding sum;
/// integer LayerNorms and GELU tables. A constant evaluation stops (naming the check) when a
/// multiplier, bias or LayerNorm gain cannot be represented.
template <gpt_config Cfg>
constexpr quantized_gpt<Cfg> quantize(const gpt_model<float, Cfg>& model,
                                      const gpt_ranges<Cfg.n_layers>& ranges) noexcept {
  using block_type = typename quantized_gpt<Cfg>::block_type;
  quantized_gpt<Cfg> q;
  // The stream's scale: the calibrated range, and every token at every position unsaturated.
  const double embeddings = detail::peak_of(model.tok_emb.weight) + detail::peak_of(model.pos_emb.weight);
  double peak = detail::abs_d(ranges.residual.lo);
  if (ranges.residual.hi > peak) peak = ranges.residual.hi;
  if (embeddings > peak) peak = embeddings;
  q.residual_scale = peak > 0.0 ? static_cast<float>(peak / detail::residual_max) : 1.0f;
  const auto s_r = static_cast<double>(q.residual_scale);
  q.tok_emb = detail::quantize_embedding(model.tok_emb, s_r);
  q.pos_emb = detail::quantize_embedding(model.pos_emb, s_r);
  std::size_t index = 0;
  boost::hana::for_each(model.trf_blocks,
                        detail::quantize_block<block_type, Cfg.n_layers>{&q.blocks, &ranges, s_r, &index});
  const quant_params normed = detail::choose_params(ranges.final_norm.lo, ranges.final_norm.hi);
  q.final_norm = detail::quantize_layer_norm(model.final_norm, s_r, normed);
  double head_scale[Cfg.vocab_size]{};
  q.out_head =
      detail::quantize_linear(model.out_head, static_cast<const matrix<float, 1, Cfg.vocab_size>*>(nullptr), normed,
                              head_scale);  // no bias
  for (std::size_t j = 0; j < Cfg.vocab_size; ++j)
    q.output_scale.elems[j] = static_cast<float>(static_cast<double>(normed.scale) * head_scale[j]);
  return q;
}

/// Post-training quantization in one call: quantize(model, calibrate(model, calibration)), with
/// B x N token ids as calibration.
template <gpt_config Cfg, token_id I, std::size_t B, std::size_t N>
constexpr quantized_gpt<Cfg> quantize(const gpt_model<float, Cfg>& model, const matrix<I, B, N>& calibration) noexcept {
  return quantize(model, calibrate(model, calibration));
}

/// The same with one calibration sequence of N ids.
template <gpt_config Cfg, token_id I, std::size_t N>
constexpr quantized_gpt<Cfg> quantize(const gpt_model<float, Cfg>& model,
                                      const std::array<I, N>& calibration) noexcept {
  return quantize(model, calibrate(model, calibration));
}

/// The book's generate_text_simple with the int8 model: MaxNew times, the argmax of the logits of
/// the last position of the last context_length ids is appended. Every step runs one window of
/// min(N + MaxNew - 1, context_length) ids, the ids after the last one padded with 0: the
/// forward pass is causal, so a row does not depend on the rows after it, bit for bit. No KV cache.
template <std::size_t MaxNew, gpt_config Cfg, token_id I, std::size_t N>
constexpr std::array<I, N + MaxNew> generate_text_simple(const quantized_gpt<Cfg>& model,
                                                         const std::array<I, N>& prompt) noexcept {
  static_assert(N > 0, "generate_text_simple(model, prompt) requires at least one prompt id");
  constexpr std::size_t ctx = Cfg.context_length;
  constexpr std::size_t v = Cfg.vocab_size;
  constexpr std::size_t longest = N + MaxNew - 1;
  constexpr std::size_t width = longest < ctx ? longest : ctx;
  static_assert(Cfg.vocab_size - 1 <= static_cast<unsigned long long>(std::numeric_limits<I>::max()),
                "generate_text_simple(model, prompt) requires an id type that holds vocab_size - 1");
  std::array<I, N + MaxNew> ids{};
  for (std::size_t i = 0; i < N; ++i) ids[i] = prompt[i];
  if constexpr (MaxNew > 0) {
    for (std::size_t len = N; len < N + MaxNew; ++len) {
      const std::size_t used = len < ctx ? len : ctx;  // the window's ids; the last one is row used - 1
      std::array<I, width> window{};
      for (std::size_t i = 0; i < used && i < width; ++i) window[i] = ids[len - used + i];
      const auto acc = model.forward_integer(window);
      const std::size_t row = used - 1;
      matrix<float, 1, v> logits;
      for (std::size_t j = 0; j < v; ++j)
        logits.elems[j] = detail::dequantize_value(acc.elems[row * v + j], model.output_scale.elems[j]);
      ids[len] = static_cast<I>(detail::argmax(logits));
    }
  }
  return ids;
}

namespace detail {
// The int8 generate_text_simple's choice: the argmax of the last position's float logits.
template <gpt_config Cfg, token_id I>
struct quantized_greedy_choice {
  const quantized_gpt<Cfg>* model;
  constexpr std::optional<I> operator()(const matrix<std::int8_t, 1, Cfg.emb_dim>& h) const noexcept {
    return static_cast<I>(argmax(model->head(h)));
  }
};

// The prompt, then MaxNew ids from the decode loop every generate shares (nn/gpt.hpp).
template <std::size_t MaxNew, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
struct quantized_greedy_into {
  const quantized_gpt<Cfg>* model;
  const std::array<I, N>* prompt;
  quantized_gpt_workspace<Cfg, Capacity>* workspace;
  constexpr void operator()(std::array<I, N + MaxNew>& ids) const noexcept {
    for (std::size_t i = 0; i < N; ++i) ids[i] = (*prompt)[i];
    quantized_greedy_choice<Cfg, I> choose{model};
    decode_steps(*model, ids.data(), N, MaxNew, *workspace, choose);
  }
};
}  // namespace detail

/// Greedy decoding of the int8 GPT with its KV cache: the ids generate_text_simple<MaxNew>(model,
/// prompt) gives, from the same accumulators at every step, at the cost of one token per step.
/// The float generate()'s loop (detail::decode_steps): the prompt (its last context_length ids)
/// runs once, then each new id alone against the cached codes; past context_length each step
/// runs the last context_length ids afresh. A prompt id outside the vocabulary is
/// errc::id_out_of_range, in every build, the workspace left as it was.
template <std::size_t MaxNew, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
constexpr result<std::array<I, N + MaxNew>> generate(const quantized_gpt<Cfg>& model, const std::array<I, N>& prompt,
                                                     quantized_gpt_workspace<Cfg, Capacity>& workspace) noexcept {
  static_assert(N > 0, "generate(model, prompt, workspace) requires at least one prompt id");
  static_assert(Cfg.vocab_size - 1 <= static_cast<unsigned long long>(std::numeric_limits<I>::max()),
                "generate(model, prompt, workspace) requires an id type that holds vocab_size - 1");
  constexpr std::size_t ctx = Cfg.context_length;
  constexpr std::size_t longest = N + MaxNew - 1;
  detail::check_workspace_capacity<Capacity, MaxNew == 0 ? 0 : (longest < ctx ? longest : ctx)>();
  using ids = result<std::array<I, N + MaxNew>>;
  if (const std::size_t bad = detail::first_bad_id<Cfg.vocab_size>(prompt.data(), N); bad < N)
    return detail::refuse_bad_id<ids, Cfg.vocab_size>(prompt.data(), bad);  // the error's frame is its own
  return {detail::result_fill, detail::quantized_greedy_into<MaxNew, Cfg, I, N, Capacity>{&model, &prompt, &workspace}};
}

}  // namespace static_attention

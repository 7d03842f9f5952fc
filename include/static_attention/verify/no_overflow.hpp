// SPDX-License-Identifier: BSL-1.0
// verify::no_overflow: a proof that a quantized attention's integer pass overflows no int32
// accumulator and no int16 intermediate, for every int8 input. Generic over the model's members
// (verify/ does not include quant/): any type with int8 linears W_query, W_key, W_value and
// W_out (members weight, Out x In int8 codes, and bias, int32), a head_dim and a max_tokens,
// as quantized_multi_head_attention has. Worst cases from the types alone: int8 codes in
// [-128, 127], centred codes in [-255, 255], probabilities in [0, 65535] (uint16). For a
// quantized GPT, also the int16 residual stream: no add reaches its rails, for any ids.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace static_attention::verify {

namespace detail {
inline constexpr std::int64_t int32_max = 2147483647;

/// A linear of int8 codes with int32 biases (weight: Out x In, bias: 1 x Out).
template <class L>
concept int8_linear = requires(const L& l) {
  { l.weight.elems[0] } -> std::convertible_to<std::int8_t>;
  { l.bias.elems[0] } -> std::convertible_to<std::int32_t>;
};

/// The smallest and largest bias_j + sum_k w_jk x_k over every int8 row x (x_k = 127 or -128 by
/// the sign of w_jk), in int64; `partial_fits`: every partial sum of the products fits int32 too
/// (dot_int sums in int32, in chunks, then adds the bias).
struct accumulator_range {
  std::int64_t lo = 0, hi = 0;
  bool partial_fits = true;
};
template <int8_linear L>
constexpr accumulator_range channel_range(const L& l, std::size_t j) noexcept {
  constexpr std::size_t out = sizeof(l.bias.elems) / sizeof(l.bias.elems[0]);
  constexpr std::size_t in = sizeof(l.weight.elems) / sizeof(l.weight.elems[0]) / out;
  accumulator_range r{l.bias.elems[j], l.bias.elems[j], true};
  for (std::size_t k = 0; k < in; ++k) {
    const std::int64_t w = l.weight.elems[j * in + k];
    r.hi += w >= 0 ? 127 * w : -128 * w;
    r.lo += w >= 0 ? -128 * w : 127 * w;
    if (r.hi - l.bias.elems[j] > int32_max || r.lo - l.bias.elems[j] < -int32_max - 1) r.partial_fits = false;
  }
  return r;
}

/// True if bias_j + sum_k w_jk x_k, and every partial sum, fits int32 for every int8 row x and
/// channel j.
template <int8_linear L>
constexpr bool linear_fits(const L& l) noexcept {
  constexpr std::size_t out = sizeof(l.bias.elems) / sizeof(l.bias.elems[0]);
  for (std::size_t j = 0; j < out; ++j) {
    const accumulator_range r = channel_range(l, j);
    if (!r.partial_fits || r.hi > int32_max || r.lo < -int32_max - 1) return false;
  }
  return true;
}
}  // namespace detail

/// A quantized attention's members, as no_overflow reads them.
template <class Q>
concept quantized_attention_like = requires(const Q& q) {
  requires detail::int8_linear<decltype(q.W_query)>;
  requires detail::int8_linear<decltype(q.W_key)>;
  requires detail::int8_linear<decltype(q.W_value)>;
  requires detail::int8_linear<decltype(q.W_out)>;
  { Q::head_dim } -> std::convertible_to<std::size_t>;
  { Q::max_tokens } -> std::convertible_to<std::size_t>;
};

/// True if, for every int8 input of N rows (default: max_tokens), no int32 accumulator of the
/// integer pass overflows: the Q, K, V and output projections (every partial sum), the scores
/// (head_dim products of centred codes, |.| <= 255) and the context sums (N probabilities
/// <= 65535 times centred codes). The int16 centred codes are differences of two int8 values.
template <std::size_t N = 0, quantized_attention_like Q>
constexpr bool no_overflow(const Q& model) noexcept {
  constexpr std::size_t n = N == 0 ? Q::max_tokens : N;
  constexpr std::int64_t centred = 255;
  const bool scores = static_cast<std::int64_t>(Q::head_dim) * centred * centred <= detail::int32_max;
  const bool context = n <= static_cast<std::size_t>(detail::int32_max / (65535 * centred));
  return scores && context && detail::linear_fits(model.W_query) && detail::linear_fits(model.W_key) &&
         detail::linear_fits(model.W_value) && detail::linear_fits(model.W_out);
}

namespace detail {
/// The int16 residual stream's rail: a code of +-32767 may be a saturated one.
inline constexpr std::int64_t residual_rail = 32767;

/// A requantizer to the residual stream: (acc, j) -> code, monotone in acc where its multiplier
/// is >= 0 (the rounding doubling high product and the rounding shift are).
template <class R>
concept residual_requantizer_like = requires(const R& r) {
  { r(std::int32_t{}, std::size_t{}) } -> std::convertible_to<std::int32_t>;
  { r.multiplier.elems[0] } -> std::convertible_to<std::int32_t>;
};

/// Adds to [lo, hi] what channel j of linear l, requantized by r, can add to the residual for
/// any int8 input; false if that may saturate (a code on the rail) or overflow int32 first.
template <int8_linear L, residual_requantizer_like R>
constexpr bool add_requantized(const L& l, const R& r, std::size_t j, std::int64_t& lo, std::int64_t& hi) noexcept {
  const accumulator_range acc = channel_range(l, j);
  if (!acc.partial_fits || acc.hi > int32_max || acc.lo < -int32_max - 1 || r.multiplier.elems[j] < 0) return false;
  const std::int64_t add_lo = r(static_cast<std::int32_t>(acc.lo), j), add_hi = r(static_cast<std::int32_t>(acc.hi), j);
  if (add_lo <= -residual_rail || add_hi >= residual_rail) return false;
  lo += add_lo;
  hi += add_hi;
  return lo > -residual_rail && hi < residual_rail;
}

/// A quantized GPT's members, as no_overflow reads them (quantized_gpt's): residual-code
/// embeddings, blocks of a quantized attention, two residual requantizers and int8 linears,
/// LayerNorms on D int16 codes with an eps term, and an int8 head.
template <class Q>
concept quantized_gpt_like = requires(const Q& q) {
  { q.tok_emb.residual(std::size_t{}, std::size_t{}) } -> std::convertible_to<std::int32_t>;
  { q.pos_emb.residual(std::size_t{}, std::size_t{}) } -> std::convertible_to<std::int32_t>;
  requires quantized_attention_like<std::remove_cvref_t<decltype(q.blocks[0].att)>>;
  requires residual_requantizer_like<decltype(q.blocks[0].att_residual)>;
  requires residual_requantizer_like<decltype(q.blocks[0].project_residual)>;
  requires int8_linear<decltype(q.blocks[0].expand)>;
  requires int8_linear<decltype(q.blocks[0].project)>;
  requires int8_linear<decltype(q.out_head)>;
  { q.blocks[0].norm1.eps_term } -> std::convertible_to<std::uint64_t>;
  { q.final_norm.eps_term } -> std::convertible_to<std::uint64_t>;
  { Q::config.emb_dim } -> std::convertible_to<std::size_t>;
};

/// The extremes of feature j of tok_emb + pos_emb over every id and position, as residual
/// codes; false if a code is on the rails (it may have saturated).
template <class Q>
constexpr bool embedding_range(const Q& model, std::size_t j, std::int64_t& lo, std::int64_t& hi) noexcept {
  std::int64_t tok_lo = model.tok_emb.residual(0, j), tok_hi = tok_lo;
  for (std::size_t r = 1; r < Q::config.vocab_size; ++r) {
    const std::int64_t v = model.tok_emb.residual(r, j);
    tok_lo = v < tok_lo ? v : tok_lo;
    tok_hi = v > tok_hi ? v : tok_hi;
  }
  std::int64_t pos_lo = model.pos_emb.residual(0, j), pos_hi = pos_lo;
  for (std::size_t p = 1; p < Q::config.context_length; ++p) {
    const std::int64_t v = model.pos_emb.residual(p, j);
    pos_lo = v < pos_lo ? v : pos_lo;
    pos_hi = v > pos_hi ? v : pos_hi;
  }
  lo = tok_lo + pos_lo;
  hi = tok_hi + pos_hi;
  return tok_lo > -residual_rail && tok_hi < residual_rail && pos_lo > -residual_rail && pos_hi < residual_rail &&
         lo > -residual_rail && hi < residual_rail;
}

/// A LayerNorm's sum of squares: eps_term plus D squares of centred codes c_j = D x_j - sum x,
/// |c_j| <= 2 (D - 1) 32767, must fit its uint64.
template <std::size_t D, class N>
constexpr bool layer_norm_fits(const N& norm) noexcept {
  constexpr std::uint64_t c = 2 * (D - 1) * 32767 + 1;
  constexpr std::uint64_t squares = D * c * c;  // D <= 1024: < 2^63
  return norm.eps_term <= ~std::uint64_t{0} - squares;
}
}  // namespace detail

/// True if a quantized GPT's integer pass overflows nothing, for every id sequence and every
/// int8 code any step can produce: every block's attention passes no_overflow at context_length
/// tokens, the expand, project and head accumulators (and their partial sums) fit int32, every
/// LayerNorm's sum of squares fits its uint64, and no embedding code (token plus position) is
/// on the int16 stream's rails. The residual adds of the blocks saturate at +-32767 by
/// construction, so they never overflow; whether they can saturate is never_saturates's question.
template <detail::quantized_gpt_like Q>
constexpr bool no_overflow(const Q& model) noexcept {
  constexpr std::size_t d = Q::config.emb_dim;
  if (!detail::linear_fits(model.out_head) || !detail::layer_norm_fits<d>(model.final_norm)) return false;
  for (const auto& b : model.blocks)
    if (!no_overflow(b.att) || !detail::linear_fits(b.expand) || !detail::linear_fits(b.project) ||
        !detail::layer_norm_fits<d>(b.norm1) || !detail::layer_norm_fits<d>(b.norm2))
      return false;
  std::int64_t lo = 0, hi = 0;
  for (std::size_t j = 0; j < d; ++j)
    if (!detail::embedding_range(model, j, lo, hi)) return false;
  return true;
}

/// True if no residual add of a quantized GPT can reach the int16 stream's rails (+-32767), for
/// any ids and any int8 codes at every step: channel by channel, the embeddings' extremes plus
/// the most each block's requantized attention and feed-forward outputs can add. Sound, and
/// loose (the codes a LayerNorm gives are not all reachable together): the book's tiny GPT,
/// whose sampled sequences never saturate, fails it, with worst cases near +-9.6e4 codes.
template <detail::quantized_gpt_like Q>
constexpr bool never_saturates(const Q& model) noexcept {
  if (!no_overflow(model)) return false;
  for (std::size_t j = 0; j < Q::config.emb_dim; ++j) {
    std::int64_t lo = 0, hi = 0;
    if (!detail::embedding_range(model, j, lo, hi)) return false;
    for (const auto& b : model.blocks)
      if (!detail::add_requantized(b.att.W_out, b.att_residual, j, lo, hi) ||
          !detail::add_requantized(b.project, b.project_residual, j, lo, hi))
        return false;
  }
  return true;
}

}  // namespace static_attention::verify

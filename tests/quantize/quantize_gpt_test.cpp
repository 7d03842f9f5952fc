// SPDX-License-Identifier: BSL-1.0
// int8 post-training quantization of the tiny GPT at compile time: its logits against the float
// model's on held-out ids and the agreement of their greedy (argmax) tokens, bounded in
// static_assert and again at run time; greedy generation; the contract's types; the int16
// residual stream; a calibration in parts.
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/quant.hpp>

#include "constexpr_check.hpp"
#include "quantize_gpt_models.hpp"

namespace sa = static_attention;
namespace qg = quant_gpt_models;

namespace {

using float_type = std::remove_cvref_t<decltype(qg::model)>;
using int8_type = std::remove_cvref_t<decltype(qg::q)>;

// ---- Type-level truths: the contract ----
static_assert(std::is_same_v<int8_type, sa::quantized_gpt<qg::tiny>>);
static_assert(std::is_trivially_copyable_v<int8_type>);
static_assert(std::is_same_v<decltype(qg::q(std::array<int, 5>{})), sa::matrix<float, 5, 64>>);
static_assert(std::is_same_v<decltype(qg::q(qg::held_out)), sa::tensor<float, 8, 8, 64>>);
static_assert(std::is_same_v<decltype(qg::q(qg::held_out)), decltype(qg::model(qg::held_out))>);
// Every weight a byte instead of four; with the per-channel biases, multipliers and shifts, the
// LayerNorm gains and the GELU tables (O(d) against the weights' O(d^2)), 2.6x smaller at d = 16.
static_assert(sizeof(int8_type) * 5 < sizeof(float_type) * 2);

// ---- Error bounds against float, on held-out ids (8 sequences of 8, |logits| <= 1.86) ----
inline constexpr float logits_bound = 0.032f;    // reached: 0.03098
inline constexpr double agreement_bound = 0.95;  // reached: 61 of 64 positions, 0.953

// The position of the largest logit of row r (the first on ties, as torch.argmax).
template <class M>
constexpr std::size_t argmax_row(const M& logits, std::size_t r) {
  constexpr std::size_t v = qg::tiny.vocab_size;
  std::size_t best = 0;
  for (std::size_t j = 1; j < v; ++j)
    if (logits.elems[r * v + j] > logits.elems[r * v + best]) best = j;
  return best;
}

// The fraction of positions whose greedy tokens agree.
template <class M>
constexpr double agreement(const M& a, const M& b) {
  constexpr std::size_t rows = M::size / qg::tiny.vocab_size;
  std::size_t same = 0;
  for (std::size_t r = 0; r < rows; ++r)
    if (argmax_row(a, r) == argmax_row(b, r)) ++same;
  return static_cast<double>(same) / static_cast<double>(rows);
}

// Each in a constant evaluation of its own. The static_asserts that no run-time check repeats are
// left to the Debug presets (SA_RUNTIME_CHECKS_ONLY: the compiler's half is the same in every
// build, and these are most of this file's compile time).
#ifndef SA_RUNTIME_CHECKS_ONLY
// [snippet:gpt_bounds]
inline constexpr auto float_logits = qg::model(qg::held_out);  // 8 x 8 x 64
inline constexpr auto int8_logits = qg::q(qg::held_out);
static_assert(sa::max_abs_diff(int8_logits, float_logits) <= logits_bound);  // 0.032
static_assert(agreement(int8_logits, float_logits) >= agreement_bound);      // 0.95 of argmax tokens
// [/snippet]
#endif

template <class Q, class M>
constexpr bool within_bounds(const Q& q, const M& m, const sa::matrix<int, 8, 8>& ids, float bound) {
  const auto a = q(ids);
  const auto b = m(ids);
  return sa::max_abs_diff(a, b) <= bound && agreement(a, b) >= agreement_bound;
}

// With qkv_bias and three heads of 6 (emb 18): quantized in one call, calibrate inside.
inline constexpr sa::gpt_config tiny_bias3{64, 8, 18, 3, 2, true};
inline SA_CONSTEXPR_OR_CONST auto model_bias3 = [] {
  sa::gpt_model<float, tiny_bias3> m;
  sa::torch_generator gen{SA_OPAQUE(123ULL)};
  sa::init_like_torch(m, gen);
  return m;
}();
inline SA_CONSTEXPR_OR_CONST auto q_bias3 = sa::quantize(SA_OPAQUE(model_bias3), qg::calibration);
inline constexpr float bias3_bound = 0.028f;  // reached: 0.02681; greedy tokens: all 64 agree
#ifndef SA_RUNTIME_CHECKS_ONLY
static_assert(within_bounds(q_bias3, model_bias3, qg::held_out, bias3_bound));
#endif

// ---- Greedy generation: the book's loop (recompute the last context_length ids each step) ----
template <std::size_t MaxNew, std::size_t N>
constexpr std::array<int, N + MaxNew> generate_int8(const int8_type& q, const std::array<int, N>& prompt) {
  constexpr std::size_t ctx = qg::tiny.context_length;
  std::array<int, N + MaxNew> ids{};
  for (std::size_t i = 0; i < N; ++i) ids[i] = prompt[i];
  auto step = [&]<std::size_t Len>() {
    constexpr std::size_t used = Len < ctx ? Len : ctx;
    std::array<int, used> window{};
    for (std::size_t i = 0; i < used; ++i) window[i] = ids[Len - used + i];
    ids[Len] = static_cast<int>(argmax_row(q(window), used - 1));
  };
  [&]<std::size_t... S>(std::index_sequence<S...>) { (step.template operator()<N + S>(), ...); }
  (std::make_index_sequence<MaxNew>{});
  return ids;
}

inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};
inline constexpr std::size_t new_tokens = 8;  // past the context: the window slides
inline constexpr auto int8_generated = generate_int8<new_tokens>(qg::q, prompt);
inline constexpr std::size_t generated_agreement_bound = new_tokens;  // reached: all 8

template <std::size_t Size>
constexpr std::size_t same_prefix(const std::array<int, Size>& a, const std::array<int, Size>& b) {
  std::size_t n = 0;
  while (n < Size && a[n] == b[n]) ++n;
  return n;
}
#ifndef SA_RUNTIME_CHECKS_ONLY
inline constexpr auto float_generated = sa::generate_text_simple<new_tokens>(qg::model, prompt);
static_assert(same_prefix(int8_generated, float_generated) >= prompt.size() + generated_agreement_bound);
// The library's generate_text_simple for the int8 model: the book's loop above, id for id.
static_assert(sa::generate_text_simple<new_tokens>(qg::q, prompt) == int8_generated);
static_assert(sa::generate_text_simple<0>(qg::q, prompt) == prompt);
static_assert(sa::generate_text_simple<2>(qg::q, std::array<int, 10>{1, 2, 3, 4, 5, 17, 42, 63, 7, 8}) ==
              generate_int8<2>(qg::q, std::array<int, 10>{1, 2, 3, 4, 5, 17, 42, 63, 7, 8}));
#endif

// ---- Pieces ----
constexpr bool integer_path_is_the_float_path() {
  const std::array<int, 6> ids{3, 1, 4, 1, 5, 9};
  return qg::q.dequantize_output(qg::q.forward_integer(ids)) == qg::q(ids);
}

constexpr bool causal() {
  // Row i sees ids 0..i only: the first 3 rows of 8 ids are the rows of their first 3.
  const std::array<int, 8> ids{3, 1, 4, 1, 5, 9, 2, 6};
  const std::array<int, 3> first{3, 1, 4};
  const auto all = qg::q.forward_integer(ids);
  const auto part = qg::q.forward_integer(first);
  for (std::size_t k = 0; k < part.size; ++k)
    if (part.elems[k] != all.elems[k]) return false;
  return true;
}

constexpr bool embeddings_never_saturate() {
  // The residual scale covers every token at every position: no code reaches the rails.
  for (std::size_t id = 0; id < qg::tiny.vocab_size; ++id)
    for (std::size_t p = 0; p < qg::tiny.context_length; ++p)
      for (std::size_t j = 0; j < qg::tiny.emb_dim; ++j) {
        const auto v = qg::q.tok_emb.residual(id, j) + qg::q.pos_emb.residual(p, j);
        if (v >= 32767 || v <= -32767) return false;
      }
  return true;
}

constexpr bool weights_and_gelu_tables() {
  // Weights symmetric per output channel (each channel's peak is +-127); the GELU table is
  // monotone over the codes whose real value is >= -0.75 (GELU decreases below about -0.752).
  const auto& b = qg::q.blocks[1];
  for (std::size_t j = 0; j < 64; ++j) {
    int peak = 0;
    for (std::size_t k = 0; k < 16; ++k) {
      const int w = b.expand.weight(j, k);
      if ((w < 0 ? -w : w) > peak) peak = w < 0 ? -w : w;
    }
    if (peak != 127) return false;
  }
  const auto hidden = sa::detail::choose_params(qg::ranges.blocks[1].hidden.lo, qg::ranges.blocks[1].hidden.hi);
  for (int c = -127; c <= 127; ++c) {
    const double x = static_cast<double>(hidden.scale) * (c - 1 - hidden.zero_point);
    if (x >= -0.75 && b.gelu(static_cast<std::int8_t>(c)) < b.gelu(static_cast<std::int8_t>(c - 1))) return false;
  }
  return true;
}

// Calibration in two parts, each a constant evaluation of its own, merged.
inline SA_CONSTEXPR_OR_CONST auto first_half = [] {
  sa::matrix<int, 8, 8> ids;
  for (std::size_t k = 0; k < ids.size; ++k) ids.elems[k] = qg::calibration.elems[k];
  return sa::calibrate(SA_OPAQUE(qg::model), ids);
}();
inline SA_CONSTEXPR_OR_CONST auto second_half = [] {
  sa::matrix<int, 8, 8> ids;
  for (std::size_t k = 0; k < ids.size; ++k) ids.elems[k] = qg::calibration.elems[64 + k];
  return sa::calibrate(SA_OPAQUE(qg::model), ids);
}();
#ifndef SA_RUNTIME_CHECKS_ONLY
static_assert(sa::merge_ranges(first_half, second_half) == qg::ranges);
#endif

}  // namespace

TEST_CASE("tiny GPT, int8: logits within their bound of float and greedy tokens agree, on held-out ids") {
  // The compile-time half is gpt_bounds' static_asserts above (in Clang, which does not memoise
  // constant evaluations, an SA_CHECK_BOTH here evaluated both models over the held-out ids again).
  // At run time on inputs the optimiser cannot see.
  const auto* volatile q = &qg::q;
  const auto* volatile m = &qg::model;
  const auto* volatile ids = &qg::held_out;
  const auto a = (*q)(*ids);
  const auto b = (*m)(*ids);
  MESSAGE("max |int8 - float| = " << sa::max_abs_diff(a, b) << ", greedy agreement " << agreement(a, b));
  CHECK(sa::max_abs_diff(a, b) <= logits_bound);
  CHECK(agreement(a, b) >= agreement_bound);
}

TEST_CASE("tiny GPT with qkv_bias and three heads, int8: within its bound, at run time") {
  const auto* volatile q = &q_bias3;
  const auto* volatile m = &model_bias3;
  const auto* volatile ids = &qg::held_out;
  const auto a = (*q)(*ids);
  const auto b = (*m)(*ids);
  MESSAGE("max |int8 - float| = " << sa::max_abs_diff(a, b) << ", greedy agreement " << agreement(a, b));
  CHECK(within_bounds(*q, *m, *ids, bias3_bound));
}

TEST_CASE("tiny GPT, int8: greedy generation follows float's") {
  const auto* volatile q = &qg::q;
  const auto* volatile m = &qg::model;
  const auto a = generate_int8<new_tokens>(*q, prompt);
  const auto b = sa::generate_text_simple<new_tokens>(*m, prompt);
  MESSAGE("same ids: " << same_prefix(a, b) - prompt.size() << " of " << new_tokens);
  CHECK(same_prefix(a, b) >= prompt.size() + generated_agreement_bound);
  CHECK(a == int8_generated);
  CHECK(sa::generate_text_simple<new_tokens>(*q, prompt) == int8_generated);
}

TEST_CASE("tiny GPT, int8: q(ids) is forward_integer then dequantize_output") {
  SA_CHECK_BOTH(integer_path_is_the_float_path());
}
TEST_CASE("tiny GPT, int8: causal") { SA_CHECK_BOTH(causal()); }
TEST_CASE("tiny GPT, int8: no embedding saturates the int16 residual stream") {
  SA_CHECK_BOTH(embeddings_never_saturate());
}
TEST_CASE("tiny GPT, int8: per-channel weights, monotone GELU tables") { SA_CHECK_BOTH(weights_and_gelu_tables()); }
constexpr bool one_sequence_is_a_batch_of_one() {
  const std::array<int, 8> ids{5, 17, 42, 63, 0, 9, 31, 2};
  const sa::matrix<int, 1, 8> batch{{5, 17, 42, 63, 0, 9, 31, 2}};
  return sa::calibrate(qg::model, ids) == sa::calibrate(qg::model, batch);
}

TEST_CASE("tiny GPT: one calibration sequence is a batch of one") { SA_CHECK_BOTH(one_sequence_is_a_batch_of_one()); }

TEST_CASE("tiny GPT: a calibration in two parts, merged, is the calibration in one") {
  const auto* volatile m = &qg::model;
  const auto* volatile ids = &qg::calibration;
  CHECK(sa::calibrate(*m, *ids) == qg::ranges);
  CHECK(sa::merge_ranges(first_half, second_half) == qg::ranges);
}

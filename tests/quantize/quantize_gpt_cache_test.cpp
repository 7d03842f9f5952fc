// SPDX-License-Identifier: BSL-1.0
// The int8 GPT's KV cache (quantized_gpt_workspace): token by token, its final-norm codes and
// out_head accumulators against the int8 model's own full recomputation (forward_integer on the
// whole sequence, generate_text_simple), bit for bit, in static_assert and at run time; its
// logits against the float model's within the int8 bound; ids out of range and capacity
// overflow as error values, the workspace untouched.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/quant.hpp>

#include "constexpr_check.hpp"
#include "quantize_gpt_models.hpp"

namespace sa = static_attention;
namespace qg = quant_gpt_models;

namespace {

using workspace8 = sa::quantized_gpt_workspace<qg::tiny, 8>;
constexpr std::size_t d = qg::tiny.emb_dim;
constexpr std::size_t v = qg::tiny.vocab_size;

// ---- Type-level truths: the float GPT's calls on the int8 GPT ----
static_assert(std::is_same_v<decltype(qg::q.hidden(std::array<int, 3>{}, std::declval<workspace8&>())),
                             sa::result<sa::matrix<std::int8_t, 3, d>>>);
static_assert(std::is_same_v<decltype(qg::q.prefill(std::array<int, 3>{}, std::declval<workspace8&>())),
                             sa::result<sa::matrix<std::int8_t, 1, d>>>);
static_assert(std::is_same_v<decltype(qg::q.prefill(std::span<const int>{}, std::declval<workspace8&>())),
                             sa::result<sa::matrix<std::int8_t, 1, d>>>);
static_assert(std::is_same_v<decltype(qg::q.head(sa::matrix<std::int8_t, 2, d>{})), sa::matrix<float, 2, v>>);
static_assert(std::is_same_v<decltype(sa::generate<5>(qg::q, std::array<int, 3>{}, std::declval<workspace8&>())),
                             sa::result<std::array<int, 8>>>);

// Row i of an N x v accumulator matrix equals row r of another.
template <class A, class B>
constexpr bool same_row(const A& a, std::size_t i, const B& b, std::size_t r) {
  for (std::size_t j = 0; j < v; ++j)
    if (a.elems[i * v + j] != b.elems[r * v + j]) return false;
  return true;
}

inline constexpr std::array<int, 8> sequence{5, 17, 42, 63, 0, 9, 33, 1};

// ---- Token by token, against forward_integer on the whole sequence ----
// Three ids prefilled, two more as one call, then one at a time: every row's accumulators are
// forward_integer's on all 8 ids (the int8 pass is causal), and hidden(ids, ws) of all 8 at once too.
constexpr bool cache_is_the_full_pass() {
  const auto full = qg::q.forward_integer(sequence);
  workspace8 ws;
  bool ok = true;
  const auto first = qg::q.prefill(std::array<int, 3>{sequence[0], sequence[1], sequence[2]}, ws);
  ok = ok && first && ws.length() == 3 && same_row(qg::q.head_integer(*first), 0, full, 2);
  const auto two = qg::q.hidden(std::array<int, 2>{sequence[3], sequence[4]}, ws);
  ok = ok && two && ws.length() == 5 && same_row(qg::q.head_integer(*two), 0, full, 3) &&
       same_row(qg::q.head_integer(*two), 1, full, 4);
  for (std::size_t i = 5; i < 8; ++i) {
    const auto one = qg::q.hidden(std::array<int, 1>{sequence[i]}, ws);
    ok = ok && one && ws.length() == i + 1 && same_row(qg::q.head_integer(*one), 0, full, i);
  }
  ws.clear();
  const auto all = qg::q.hidden(sequence, ws);
  ok = ok && all && ws.length() == 8;
  for (std::size_t i = 0; ok && i < 8; ++i) ok = same_row(qg::q.head_integer(*all), i, full, i);
  return ok;
}

// The span prefill (run-time length) gives prefill(std::array)'s codes, bit for bit.
constexpr bool span_prefill_is_the_array_prefill() {
  workspace8 a;
  workspace8 b;
  const auto x = qg::q.prefill(sequence, a);
  const auto y = qg::q.prefill(std::span<const int>(sequence.data(), 8), b);
  const auto z = qg::q.prefill(std::span<const int>(sequence.data(), 6), b);  // capacity: 8 + 6 > 8
  b.clear();
  const auto w = qg::q.prefill(std::span<const int>(sequence.data(), 6), b);
  const auto full = qg::q.forward_integer(sequence);
  return x && y && *x == *y && !z && w && same_row(qg::q.head_integer(*w), 0, full, 5);
}

// generate() with the cache is generate_text_simple (the full recomputation each step), id for
// id: a short run, one that slides past the context (4 + 12 > 8) and MaxNew 0.
constexpr bool generate_is_generate_text_simple() {
  workspace8 ws;
  const std::array<int, 4> prompt{5, 17, 42, 63};
  const auto a = sa::generate<12>(qg::q, prompt, ws);
  const auto b = sa::generate<3>(qg::q, prompt, ws);
  const auto c = sa::generate<0>(qg::q, prompt, ws);
  return a && *a == sa::generate_text_simple<12>(qg::q, prompt) && b &&
         *b == sa::generate_text_simple<3>(qg::q, prompt) && c && *c == prompt;
}

// The cached logits against the float model's on the same ids: the int8 bound of
// quantize_gpt_test.cpp (0.032 on held-out ids; here 8 ids, one row at a time).
inline constexpr float logits_bound = 0.032f;
constexpr bool cached_logits_within_bound_of_float() {
  const auto expected = qg::model(sequence);
  workspace8 ws;
  float worst = 0.0f;
  for (std::size_t i = 0; i < 8; ++i) {
    const auto h = qg::q.hidden(std::array<int, 1>{sequence[i]}, ws);
    if (!h) return false;
    const auto logits = qg::q.head(*h);
    for (std::size_t j = 0; j < v; ++j) {
      const float e = logits.elems[j] - expected.elems[i * v + j];
      const float a = e < 0 ? -e : e;
      if (a > worst) worst = a;
    }
  }
  return worst <= logits_bound;
}

// Ids out of range and capacity overflow: error values, the workspace as it was.
constexpr bool errors_leave_the_workspace_untouched() {
  workspace8 ws;
  bool ok = static_cast<bool>(qg::q.prefill(std::array<int, 5>{1, 2, 3, 4, 5}, ws)) && ws.length() == 5;
  const auto caches = ws.caches;
  const auto too_many = qg::q.hidden(std::array<int, 4>{1, 2, 3, 4}, ws);
  ok = ok && !too_many && too_many.error().code == sa::errc::capacity_exceeded;
  const auto none = qg::q.prefill(std::span<const int>(), ws);
  ok = ok && !none && none.error().code == sa::errc::invalid_argument;
  return ok && ws.length() == 5 && ws.caches == caches;
}

bool ids_out_of_range_are_errors() {  // run time only: in constant evaluation they are compile errors
  workspace8 ws;
  bool ok = static_cast<bool>(qg::q.prefill(std::array<int, 2>{1, 2}, ws));
  const auto caches = ws.caches;
  const auto big = qg::q.hidden(std::array<int, 2>{3, 64}, ws);
  const auto negative = qg::q.prefill(std::array<int, 1>{-1}, ws);
  const std::array<int, 3> run_time{7, 70, 8};
  const auto span = qg::q.prefill(std::span<const int>(run_time), ws);
  const auto generated = sa::generate<4>(qg::q, std::array<int, 2>{1, 99}, ws);
  ok = ok && !big && big.error().code == sa::errc::id_out_of_range && !negative &&
       negative.error().code == sa::errc::id_out_of_range && !span && span.error().code == sa::errc::id_out_of_range &&
       !generated && generated.error().code == sa::errc::id_out_of_range;
  return ok && ws.length() == 2 && ws.caches == caches;
}

}  // namespace

TEST_CASE("int8 GPT, cached: every row's accumulators are forward_integer's on the whole sequence") {
  SA_CHECK_BOTH(cache_is_the_full_pass());
}
TEST_CASE("int8 GPT, cached: the span prefill is the array prefill") {
  SA_CHECK_BOTH(span_prefill_is_the_array_prefill());
}
TEST_CASE("int8 GPT, cached: generate is generate_text_simple, id for id") {
  SA_CHECK_BOTH(generate_is_generate_text_simple());
}
TEST_CASE("int8 GPT, cached: logits within the int8 bound of float") {
  SA_CHECK_BOTH(cached_logits_within_bound_of_float());
}
TEST_CASE("int8 GPT, cached: capacity overflow and no ids are errors, the workspace untouched") {
  SA_CHECK_BOTH(errors_leave_the_workspace_untouched());
}
TEST_CASE("int8 GPT, cached: ids out of range are errors, the workspace untouched") {
  CHECK(ids_out_of_range_are_errors());
}

// SPDX-License-Identifier: BSL-1.0
// The KV cache: a prompt run once and then one token per step gives, bit for bit, the hidden
// states and ids of recomputing the whole sequence every step (the book's generate_text_simple
// without a cache: model(ids) on the cropped sequence, its last row, softmax, argmax). Checked
// in static_assert on the tiny GPT and at run time; at capacity the window slides as the book crops.
#include <array>
#include <bit>
#include <cstdint>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>

#include "constexpr_check.hpp"
#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_config tiny_bias3{64, 8, 18, 3, 2, true};

template <class T, sa::gpt_config Cfg>
constexpr sa::gpt_model<T, Cfg> make_model() {
  sa::gpt_model<T, Cfg> model;
  sa::torch_generator gen{123};
  sa::init_like_torch(model, gen);
  return model;
}
template <class T, sa::gpt_config Cfg>
inline constexpr auto model = make_model<T, Cfg>();

template <class M>
constexpr bool same_bits(const M& a, const M& b) {
  using U = std::conditional_t<sizeof(typename M::value_type) == 8, std::uint64_t, std::uint32_t>;
  for (std::size_t k = 0; k < M::size; ++k)
    if (std::bit_cast<U>(a.elems[k]) != std::bit_cast<U>(b.elems[k])) return false;
  return true;
}

// 3 ids, then 2, then 1, through one workspace: the rows of hidden() on all 6 at once.
template <class T, sa::gpt_config Cfg>
constexpr bool cached_rows_are_full_rows() {
  const auto& m = model<T, Cfg>;
  const std::array<int, 6> ids{5, 17, 42, 63, 0, 9};
  const auto full = m.hidden(ids);
  sa::gpt_workspace<T, Cfg, 6> ws;
  const auto a = m.hidden(std::array<int, 3>{5, 17, 42}, ws).value();
  const auto b = m.hidden(std::array<int, 2>{63, 0}, ws).value();
  const auto c = m.hidden(std::array<int, 1>{9}, ws).value();
  bool ok = ws.length() == 6;
  for (std::size_t i = 0; i < 3; ++i) ok = ok && same_bits(sa::row(a, i), sa::row(full, i));
  for (std::size_t i = 0; i < 2; ++i) ok = ok && same_bits(sa::row(b, i), sa::row(full, 3 + i));
  return ok && same_bits(sa::row(c, 0), sa::row(full, 5));
}

// The book's loop without a cache: the whole cropped sequence every step.
template <std::size_t MaxNew, class T, sa::gpt_config Cfg, std::size_t N>
constexpr std::array<int, N + MaxNew> recompute(const sa::gpt_model<T, Cfg>& m, const std::array<int, N>& prompt) {
  std::array<int, N + MaxNew> ids{};
  for (std::size_t i = 0; i < N; ++i) ids[i] = prompt[i];
  auto step = [&]<std::size_t Len>() {
    constexpr std::size_t used = Len < Cfg.context_length ? Len : Cfg.context_length;
    std::array<int, used> window{};
    for (std::size_t i = 0; i < used; ++i) window[i] = ids[Len - used + i];
    const auto logits = sa::row(m(window), used - 1);
    std::size_t best = 0;
    const auto probs = sa::softmax(logits);
    for (std::size_t v = 1; v < Cfg.vocab_size; ++v)
      if (probs.elems[v] > probs.elems[best]) best = v;
    ids[Len] = static_cast<int>(best);
  };
  [&]<std::size_t... S>(std::index_sequence<S...>) { (step.template operator()<N + S>(), ...); }
  (std::make_index_sequence<MaxNew>{});
  return ids;
}

inline constexpr std::array<int, 4> prompt{5, 17, 42, 63};

// The recomputation in a constant evaluation of its own (Clang's step budget is per evaluation).
template <class T, sa::gpt_config Cfg>
inline constexpr auto recomputed = recompute<3>(model<T, Cfg>, prompt);

template <class T, sa::gpt_config Cfg>
constexpr bool cached_generation_is_recomputation() {
  sa::gpt_workspace<T, Cfg, 6> ws;
  const auto cached = sa::generate<3>(model<T, Cfg>, prompt, ws).value();
  // One workspace serves call after call: each starts from its prompt.
  const auto again = sa::generate<3>(model<T, Cfg>, prompt, ws).value();
  return cached == recomputed<T, Cfg> && again == cached;
}

}  // namespace

TEST_CASE("kv_cache: rows computed a few at a time are the full pass's rows, bit for bit") {
  SA_CHECK_BOTH(cached_rows_are_full_rows<float, tiny>());
  SA_CHECK_BOTH(cached_rows_are_full_rows<float, tiny_bias3>());
  SA_CHECK_BOTH(cached_rows_are_full_rows<double, tiny>());
}

TEST_CASE("kv_cache: generate with a workspace is the book's recomputing loop") {
  SA_CHECK_BOTH(cached_generation_is_recomputation<float, tiny>());
  SA_CHECK_BOTH(cached_generation_is_recomputation<double, tiny>());
}

TEST_CASE("kv_cache: at capacity the window slides as the book crops") {
  // 4 + 8 ids with context 8: the last three steps rerun the last 8 ids.
  static sa::gpt_workspace<float, tiny, 8> ws;
  const auto ids = sa::generate<8>(model<float, tiny>, prompt, ws).value();
  CHECK(ids == recompute<8>(model<float, tiny>, prompt));
  CHECK(gpt_test::same_ids(ids, ref::tiny_generated_long));
  // A prompt longer than the context: its last 8 ids.
  const std::array<int, 10> long_prompt{1, 2, 3, 4, 5, 17, 42, 63, 7, 8};
  CHECK(sa::generate<3>(model<float, tiny>, long_prompt, ws).value() == recompute<3>(model<float, tiny>, long_prompt));
}

// SPDX-License-Identifier: BSL-1.0
// Constexpr truth: with the vocabulary embedded at build time (embed_gpt2_vocab), every reference
// text but the-verdict.txt (too long for Clang's default -fconstexpr-steps) encodes to
// js-tiktoken's ids inside static_assert, one evaluation per text, under the compilers' default
// limits; the same checks run again at run time, where every text is checked.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <utility>

#include <test_vocab/gpt2.hpp>

#include "tokenizer_reference.hpp"

namespace {

constexpr std::size_t text_count = std::size(tokenizer_reference::cases);

// True if text k encodes to its reference ids (at most Capacity - 1), writing nothing past them.
template <std::size_t Capacity = 512>
constexpr bool encodes_as_reference(std::size_t k) {
  const auto& c = tokenizer_reference::cases[k];
  const std::size_t expected = c.text.empty() ? 0 : c.ids.size();
  std::array<int, Capacity> ids{};
  if (expected >= ids.size()) return false;
  ids[expected] = -7;
  const auto r = test_vocab::gpt2.encode(c.text, std::span<int>(ids.data(), expected + 1));
  if (!r || *r != expected || ids[expected] != -7) return false;
  for (std::size_t i = 0; i < expected; ++i)
    if (ids[i] != c.ids[i]) return false;
  return true;
}

constexpr bool hello_i_am() {
  std::array<int, 4> ids{};
  const auto r = test_vocab::gpt2.encode("Hello, I am", ids);
  return r && *r == 4 && ids == std::array<int, 4>{15496, 11, 314, 716};
}
static_assert(hello_i_am());

// One static_assert per text, so each gets the compiler's whole constexpr budget.
template <std::size_t K>
struct checked_at_compile_time {
  static_assert(encodes_as_reference(K), "a reference text does not encode to js-tiktoken's ids");
  static constexpr bool value = true;
};
template <std::size_t Base, std::size_t... K>
constexpr bool all_checked(std::index_sequence<K...>) {
  return (checked_at_compile_time<Base + K>::value && ...);
}
// Clang folds at most 256 operands: the texts in groups.
static_assert(tokenizer_reference::cases[text_count - 1].name == "the_verdict");
static_assert(all_checked<0>(std::make_index_sequence<200>{}));
static_assert(all_checked<200>(std::make_index_sequence<200>{}));
static_assert(all_checked<400>(std::make_index_sequence<text_count - 401>{}));

}  // namespace

TEST_CASE("the embedded vocabulary encodes every reference text at run time as at compile time") {
  CHECK(hello_i_am());
  for (std::size_t k = 0; k < text_count; ++k) {
    CAPTURE(tokenizer_reference::cases[k].name);
    CHECK(encodes_as_reference<8192>(k));
  }
}

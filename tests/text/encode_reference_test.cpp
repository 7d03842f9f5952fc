// SPDX-License-Identifier: BSL-1.0
// Run-time truth: the tokenizer read from OpenAI's encoder.json and vocab.bpe gives, for every
// reference text (scripts, emoji, white space of every kind, code, <|endoftext|>, the-verdict.txt),
// exactly the ids js-tiktoken gives (tokenizer_reference.hpp).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdio>
#include <vector>

#include <static_attention/io/tokenizer_files.hpp>

#include "tokenizer_reference.hpp"

namespace sa = static_attention;

namespace {
const sa::loaded_gpt2_tokenizer& tokenizer() {
  static const auto tok = sa::load_gpt2_tokenizer(SA_GPT2_VOCAB_DIR "/encoder.json", SA_GPT2_VOCAB_DIR "/vocab.bpe");
  if (!tok) std::fprintf(stderr, "%s\n", tok.error().message.c_str());
  REQUIRE(tok);
  return *tok;
}
}  // namespace

TEST_CASE("every reference text encodes to js-tiktoken's ids") {
  std::size_t mismatches = 0;
  std::size_t bytes = 0;
  for (const auto& c : tokenizer_reference::cases) {
    CAPTURE(c.name);
    const std::size_t expected = c.text.empty() ? 0 : c.ids.size();
    std::vector<int> ids(expected + 8, -7);
    const auto r = tokenizer().encode(c.text, ids);
    REQUIRE(r);
    bytes += c.text.size();
    bool same = *r == expected;
    for (std::size_t i = 0; same && i < expected; ++i) same = ids[i] == c.ids[i];
    CHECK(same);
    CHECK(ids[*r] == -7);  // nothing written past the count
    mismatches += same ? 0 : 1;
    const auto n = tokenizer().count(c.text);
    REQUIRE(n);
    CHECK(*n == expected);
  }
  MESSAGE(std::size(tokenizer_reference::cases), " texts, ", bytes, " bytes, ", mismatches, " mismatches");
  CHECK(mismatches == 0);
}

TEST_CASE("the book's example: \"Hello, I am\" is 15496, 11, 314, 716") {
  std::array<int, 4> ids{};
  const auto r = tokenizer().encode("Hello, I am", ids);
  REQUIRE(r);
  CHECK(*r == 4);
  CHECK(ids == std::array<int, 4>{15496, 11, 314, 716});
}

TEST_CASE("a loaded tokenizer copies and moves with its tables") {
  auto copy = tokenizer();
  const sa::loaded_gpt2_tokenizer moved = std::move(copy);
  std::array<int, 4> ids{};
  REQUIRE(moved.encode("Hello, I am", ids));
  CHECK(ids[0] == 15496);
  CHECK(moved.tables().token_bytes != tokenizer().tables().token_bytes);
}

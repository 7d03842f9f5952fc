// SPDX-License-Identifier: BSL-1.0
// Constexpr and run-time truth: decode(encode(x)) == x, byte for byte, for every reference text
// (and the-verdict.txt read from its file), and decoding the reference ids gives the text back.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <test_vocab/gpt2.hpp>

#include "tokenizer_reference.hpp"

namespace {

// True if text k survives encode then decode, and its reference ids decode to it.
template <std::size_t Ids, std::size_t Bytes>
constexpr bool round_trips(std::string_view text, std::span<const int> reference_ids) {
  std::array<int, Ids> ids{};
  const auto n = test_vocab::gpt2.encode(text, ids);
  if (!n) return false;
  std::array<char, Bytes> bytes{};
  const auto m = test_vocab::gpt2.decode(std::span<const int>(ids.data(), *n), bytes);
  if (!m || std::string_view(bytes.data(), *m) != text) return false;
  if (text.empty()) return true;
  const auto r = test_vocab::gpt2.decode(reference_ids, bytes);
  return r && std::string_view(bytes.data(), *r) == text;
}

// The hand-written texts (the first 70), each in a static_assert of its own.
constexpr bool case_round_trips(std::size_t k) {
  const auto& c = tokenizer_reference::cases[k];
  return round_trips<1024, 2048>(c.text, c.ids);
}
template <std::size_t... K>
constexpr bool first_round_trip(std::index_sequence<K...>) {
  return ((std::integral_constant<bool, case_round_trips(K)>::value) && ...);
}
static_assert(first_round_trip(std::make_index_sequence<70>{}));

}  // namespace

TEST_CASE("decode(encode(x)) == x for every reference text") {
  CHECK(first_round_trip(std::make_index_sequence<70>{}));
  for (const auto& c : tokenizer_reference::cases) {
    CAPTURE(c.name);
    CHECK(round_trips<8192, 32768>(c.text, c.ids));
  }
}

TEST_CASE("decode(encode(x)) == x for the-verdict.txt as read from its file") {
  std::ifstream in(SA_TEXT_DATA_DIR "/the-verdict.txt", std::ios::binary);
  REQUIRE(in);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  REQUIRE(text.size() == 20479);
  std::vector<int> ids(text.size());
  const auto n = test_vocab::gpt2.encode(text, ids);
  REQUIRE(n);
  CHECK(*n == 5145);  // the book's count
  std::string back(text.size(), '\0');
  const auto m = test_vocab::gpt2.decode(std::span<const int>(ids.data(), *n), back);
  REQUIRE(m);
  CHECK(back == text);
}

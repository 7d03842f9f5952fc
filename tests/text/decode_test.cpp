// SPDX-License-Identifier: BSL-1.0
// Constexpr and run-time truth: decode writes the tokens' bytes, and refuses an id outside
// [0, 50257) or an output too small with an error value, writing nothing at all.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <test_vocab/gpt2.hpp>

namespace sa = static_attention;

namespace {

constexpr bool decodes_hello() {
  constexpr std::array<int, 4> ids{15496, 11, 314, 716};
  std::array<char, 16> out{};
  const auto r = test_vocab::gpt2.decode(ids, out);
  return r && std::string_view(out.data(), *r) == "Hello, I am";
}
static_assert(decodes_hello());

// Other id types: unsigned 16-bit, 64-bit, size_t; <|endoftext|> decodes to its text.
constexpr bool decodes_other_types() {
  constexpr std::array<std::uint16_t, 2> small{50256, 40};
  constexpr std::array<std::int64_t, 1> wide{50256};
  constexpr std::array<std::size_t, 1> sizes{13};
  std::array<char, 16> out{};
  const auto a = test_vocab::gpt2.decode(small, out);
  if (!a || std::string_view(out.data(), *a) != "<|endoftext|>I") return false;
  const auto b = test_vocab::gpt2.decode(wide, out);
  if (!b || std::string_view(out.data(), *b) != "<|endoftext|>") return false;
  const auto c = test_vocab::gpt2.decode(sizes, out);
  return c && std::string_view(out.data(), *c) == ".";
}
static_assert(decodes_other_types());

// An error, with the code given and `out` untouched.
template <class I, std::size_t N, std::size_t M>
constexpr bool refuses(const std::array<I, N>& ids, std::size_t out_size, sa::errc code) {
  std::array<char, M> out{};
  for (char& c : out) c = '#';
  const auto r = test_vocab::gpt2.decode(std::span<const I>(ids), std::span<char>(out.data(), out_size));
  if (r || r.error().code != code) return false;
  for (char c : out)
    if (c != '#') return false;
  return true;
}
static_assert(refuses<int, 3, 16>({15496, 50257, 11}, 16, sa::errc::id_out_of_range));
static_assert(refuses<int, 2, 16>({15496, -1}, 16, sa::errc::id_out_of_range));
static_assert(refuses<std::size_t, 1, 16>({std::size_t{1} << 40}, 16, sa::errc::id_out_of_range));
static_assert(refuses<int, 4, 16>({15496, 11, 314, 716}, 10, sa::errc::output_too_small));

}  // namespace

TEST_CASE("decode at run time, as at compile time") {
  CHECK(decodes_hello());
  CHECK(decodes_other_types());
  CHECK(refuses<int, 3, 16>({15496, 50257, 11}, 16, sa::errc::id_out_of_range));
  CHECK(refuses<int, 2, 16>({15496, -1}, 16, sa::errc::id_out_of_range));
  CHECK(refuses<int, 4, 16>({15496, 11, 314, 716}, 10, sa::errc::output_too_small));
}

TEST_CASE("decode's errors say where and how much") {
  std::array<char, 16> out{};
  const auto bad = test_vocab::gpt2.decode(std::array<int, 3>{1, 2, 50257}, out);
  REQUIRE(!bad);
  CHECK(bad.error().message == "gpt2_tokenizer::decode(ids, out): ids[2] is 50257, outside GPT-2's vocabulary [0, 50257)");
  const auto small = test_vocab::gpt2.decode(std::array<int, 4>{15496, 11, 314, 716}, std::span<char>(out.data(), 10));
  REQUIRE(!small);
  CHECK(small.error().message == "gpt2_tokenizer::decode(ids, out): the text is 11 bytes but out holds 10");
}

TEST_CASE("encode's output too small: nothing written past out, and the count needed") {
  std::array<int, 6> ids{-7, -7, -7, -7, -7, -7};
  const auto r = test_vocab::gpt2.encode("Hello, I am", std::span<int>(ids.data(), 3));
  REQUIRE(!r);
  CHECK(r.error().code == sa::errc::output_too_small);
  CHECK(r.error().message == "gpt2_tokenizer::encode(text, out): the text is 4 tokens but out holds 3");
  CHECK(ids[3] == -7);
  CHECK(ids[4] == -7);
}

// SPDX-License-Identifier: BSL-1.0
// Constexpr and run-time truth: the streaming decoders write only whole UTF-8 characters, hold a
// character split across tokens until it is complete, and replace ill-formed bytes with U+FFFD
// as Python's bytes.decode("utf-8", errors="replace") does.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <string_view>

#include <static_attention/text/utf8_stream_decoder.hpp>
#include <test_vocab/gpt2.hpp>

#include "tokenizer_reference.hpp"

namespace sa = static_attention;
using namespace std::string_view_literals;

namespace {

// Streams the reference ids of text k, one at a time: every write is whole characters, and all
// of them together are the text.
constexpr bool streams_whole_characters(std::size_t k) {
  const auto& c = tokenizer_reference::cases[k];
  if (c.text.empty()) return true;
  sa::gpt2_stream_decoder dec{test_vocab::gpt2};
  std::array<char, 2048> all{};
  std::size_t size = 0;
  std::array<char, sa::gpt2_stream_decoder::max_output_per_token> buf{};
  for (const int id : c.ids) {
    const auto n = dec.push(id, buf);
    if (!n || size + *n > all.size()) return false;
    const std::string_view piece(buf.data(), *n);
    if (sa::detail::first_invalid_utf8(piece) != std::string_view::npos) return false;
    for (char ch : piece) all[size++] = ch;
  }
  const auto tail = dec.finish(buf);
  return tail && *tail == 0 && dec.pending() == 0 && std::string_view(all.data(), size) == c.text;
}

constexpr std::size_t case_index(std::string_view name) {
  for (std::size_t k = 0; k < std::size(tokenizer_reference::cases); ++k)
    if (tokenizer_reference::cases[k].name == name) return k;
  return 0;
}

constexpr bool emoji_stream() {
  return streams_whole_characters(case_index("emoji")) && streams_whole_characters(case_index("emoji_zwj")) &&
         streams_whole_characters(case_index("emoji_skin_tones")) && streams_whole_characters(case_index("chinese")) &&
         streams_whole_characters(case_index("devanagari"));
}
static_assert(emoji_stream());

// Pushes `parts` one after another, then finishes; true if the output is `expected`.
template <std::size_t N>
constexpr bool bytes_decode_to(const std::array<std::string_view, N>& parts, std::string_view expected) {
  sa::utf8_stream_decoder dec;
  std::array<char, 64> out{};
  std::size_t size = 0;
  for (const auto part : parts) {
    const auto n = dec.push(part, std::span<char>(out.data() + size, out.size() - size));
    if (!n) return false;
    size += *n;
  }
  const auto n = dec.finish(std::span<char>(out.data() + size, out.size() - size));
  return n && std::string_view(out.data(), size + *n) == expected;
}

constexpr std::string_view fffd = "\xEF\xBF\xBD";
constexpr bool replacements() {
  return bytes_decode_to<3>({"\xF0\x9F", "\x98", "\x80!"}, "\xF0\x9F\x98\x80!")         // 😀 in three pushes
         && bytes_decode_to<1>({"a\x80" "b"}, "a\xEF\xBF\xBD" "b")                      // a lone continuation byte
         && bytes_decode_to<1>({"\xE2\x82"}, fffd)                                      // cut off at the end: one U+FFFD
         && bytes_decode_to<1>({"\xE2(\xA1"}, "\xEF\xBF\xBD(\xEF\xBF\xBD")              // Python: '\ufffd(\ufffd'
         && bytes_decode_to<1>({"\xF0\x80\x80"}, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD")  // Python: three U+FFFD
         && bytes_decode_to<2>({"\xED", "\xA0\x80"}, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD")  // a surrogate
         && bytes_decode_to<2>({"\xC3", "\xA9\xC3"}, "\xC3\xA9\xEF\xBF\xBD");          // é, then a cut-off é
}
static_assert(replacements());

// Too small an output: an error, the decoder unchanged, so the push can be retried.
constexpr bool retry_after_too_small() {
  sa::utf8_stream_decoder dec;
  std::array<char, 8> out{};
  if (!dec.push("\xF0\x9F", out) || dec.pending() != 2) return false;
  const auto small = dec.push("\x98\x80" "abc", std::span<char>(out.data(), 3));
  if (small || small.error().code != sa::errc::output_too_small || dec.pending() != 2) return false;
  const auto r = dec.push("\x98\x80" "abc", out);
  return r && std::string_view(out.data(), *r) == "\xF0\x9F\x98\x80" "abc";
}
static_assert(retry_after_too_small());

constexpr bool id_out_of_range() {
  sa::gpt2_stream_decoder dec{test_vocab::gpt2};
  std::array<char, 8> out{};
  const auto r = dec.push(50257, out);
  return !r && r.error().code == sa::errc::id_out_of_range;
}
static_assert(id_out_of_range());

}  // namespace

TEST_CASE("streaming decoders at run time, as at compile time") {
  CHECK(emoji_stream());
  CHECK(replacements());
  CHECK(retry_after_too_small());
  CHECK(id_out_of_range());
}

TEST_CASE("every reference text streams as whole characters") {
  for (std::size_t k = 0; k + 1 < std::size(tokenizer_reference::cases); ++k) {
    CAPTURE(tokenizer_reference::cases[k].name);
    CHECK(streams_whole_characters(k));
  }
}

// SPDX-License-Identifier: BSL-1.0
// Constexpr and run-time truth: text that is not well-formed UTF-8 is refused with
// errc::invalid_utf8 and the offset of the first bad byte, and no id is written.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <string_view>

#include <test_vocab/gpt2.hpp>

namespace sa = static_attention;
using namespace std::string_view_literals;

namespace {

// True if `text` is refused as invalid UTF-8 at byte `at`, with `out` untouched.
constexpr bool refused_at(std::string_view text, std::size_t at) {
  std::array<int, 16> ids{};
  for (int& id : ids) id = -7;
  const auto r = test_vocab::gpt2.encode(text, ids);
  if (r || r.error().code != sa::errc::invalid_utf8) return false;
  for (int id : ids)
    if (id != -7) return false;
  sa::error_message expected("gpt2_tokenizer::encode(text, out): the text is not valid UTF-8 at byte ");
  expected.append_int(at);
  return r.error().message == expected.view() && !test_vocab::gpt2.count(text);
}

constexpr bool all_refused() {
  return refused_at("abc\x80", 3)                     // a lone continuation byte
         && refused_at("\xC3", 0)                     // cut off at the end
         && refused_at("ok \xC3(", 3)                 // a lead byte without its continuation
         && refused_at("\xC0\xAF", 0)                 // an overlong '/'
         && refused_at("x\xE0\x80\xAF", 1)            // an overlong three-byte form
         && refused_at("\xED\xA0\x80", 0)             // a surrogate, U+D800
         && refused_at("\xF4\x90\x80\x80", 0)         // above U+10FFFF
         && refused_at("\xF5\x80\x80\x80", 0)         // a byte that never appears
         && refused_at("\xFF", 0)                     //
         && refused_at("caf\xC3\xA9 \xE2\x82", 6)     // a euro sign cut off
         && refused_at("<|endoftext|>\x80", 13)       // after a special token
         && refused_at("\xF0\x9F\x98", 0);            // an emoji cut off
}
static_assert(all_refused());

// Well-formed edge cases are accepted: U+0000, U+007F, U+0080, U+07FF, U+FFFF, U+10FFFF.
constexpr bool edges_accepted() {
  std::array<int, 32> ids{};
  return bool(test_vocab::gpt2.encode("\0\x7F\xC2\x80\xDF\xBF\xEF\xBF\xBF\xF4\x8F\xBF\xBF"sv, ids));
}
static_assert(edges_accepted());

}  // namespace

TEST_CASE("invalid UTF-8 is refused at run time as at compile time") {
  CHECK(all_refused());
  CHECK(edges_accepted());
}

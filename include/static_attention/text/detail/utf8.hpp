// SPDX-License-Identifier: BSL-1.0
// UTF-8 for the tokenizer: validation, decoding of text already validated, and the length of a
// well-formed sequence from its lead byte. Constexpr, freestanding, no heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace static_attention::detail {

// The byte at i as an unsigned value.
constexpr std::uint32_t byte_at(std::string_view s, std::size_t i) noexcept { return static_cast<unsigned char>(s[i]); }

// How many continuation bytes follow `lead` in a well-formed sequence, and the range its first
// continuation byte must lie in (Unicode's table 3-7: no overlong forms, no surrogates, nothing
// above U+10FFFF). need == -1: a byte that never starts a sequence.
struct utf8_lead {
  int need;
  std::uint32_t lo;
  std::uint32_t hi;
};
constexpr utf8_lead classify_lead(std::uint32_t lead) noexcept {
  if (lead < 0x80u) return {0, 0, 0};
  if (lead >= 0xC2u && lead <= 0xDFu) return {1, 0x80u, 0xBFu};
  if (lead == 0xE0u) return {2, 0xA0u, 0xBFu};
  if (lead == 0xEDu) return {2, 0x80u, 0x9Fu};
  if (lead >= 0xE1u && lead <= 0xEFu) return {2, 0x80u, 0xBFu};
  if (lead == 0xF0u) return {3, 0x90u, 0xBFu};
  if (lead >= 0xF1u && lead <= 0xF3u) return {3, 0x80u, 0xBFu};
  if (lead == 0xF4u) return {3, 0x80u, 0x8Fu};
  return {-1, 0, 0};
}

// How a prefix of `s` from `i` reads: a well-formed sequence of `length` bytes (status ok), the
// start of one that `s` cuts off (incomplete: `length` bytes so far), or a maximal subpart of an
// ill-formed one (invalid: `length` bytes to replace by one U+FFFD, as Unicode recommends and
// Python's errors="replace" does).
enum class utf8_status { ok, incomplete, invalid };
struct utf8_scan {
  utf8_status status;
  std::size_t length;
};
constexpr utf8_scan scan_utf8(std::string_view s, std::size_t i) noexcept {
  const utf8_lead lead = classify_lead(byte_at(s, i));
  if (lead.need < 0) return {utf8_status::invalid, 1};
  const auto need = static_cast<std::size_t>(lead.need);
  for (std::size_t k = 1; k <= need; ++k) {
    if (i + k == s.size()) return {utf8_status::incomplete, k};
    const std::uint32_t c = byte_at(s, i + k);
    const std::uint32_t lo = k == 1 ? lead.lo : 0x80u;
    const std::uint32_t hi = k == 1 ? lead.hi : 0xBFu;
    if (c < lo || c > hi) return {utf8_status::invalid, k};
  }
  return {utf8_status::ok, need + 1};
}

// The offset of the first byte of `s` that is not part of well-formed UTF-8, or npos.
constexpr std::size_t first_invalid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    if (byte_at(s, i) < 0x80u) {
      ++i;
      continue;
    }
    const utf8_scan r = scan_utf8(s, i);
    if (r.status != utf8_status::ok) return i;
    i += r.length;
  }
  return std::string_view::npos;
}

// The code point starting at i of well-formed UTF-8, and its length in bytes.
struct decoded_code_point {
  char32_t value;
  std::size_t length;
};
constexpr decoded_code_point decode_valid_utf8(std::string_view s, std::size_t i) noexcept {
  const std::uint32_t b0 = byte_at(s, i);
  if (b0 < 0x80u) return {static_cast<char32_t>(b0), 1};
  if (b0 < 0xE0u) return {static_cast<char32_t>(((b0 & 0x1Fu) << 6) | (byte_at(s, i + 1) & 0x3Fu)), 2};
  if (b0 < 0xF0u)
    return {
        static_cast<char32_t>(((b0 & 0x0Fu) << 12) | ((byte_at(s, i + 1) & 0x3Fu) << 6) | (byte_at(s, i + 2) & 0x3Fu)),
        3};
  return {static_cast<char32_t>(((b0 & 0x07u) << 18) | ((byte_at(s, i + 1) & 0x3Fu) << 12) |
                                ((byte_at(s, i + 2) & 0x3Fu) << 6) | (byte_at(s, i + 3) & 0x3Fu)),
          4};
}

// The UTF-8 bytes of code point cp (below 0x110000) into out; returns how many, 1 to 4.
constexpr std::size_t encode_utf8(std::uint32_t cp, char (&out)[4]) noexcept {
  if (cp < 0x80u) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  const std::size_t n = cp < 0x800u ? 2 : (cp < 0x10000u ? 3 : 4);
  constexpr unsigned char lead[5] = {0, 0, 0xC0u, 0xE0u, 0xF0u};
  for (std::size_t k = n - 1; k > 0; --k, cp >>= 6) out[k] = static_cast<char>(0x80u | (cp & 0x3Fu));
  out[0] = static_cast<char>(lead[n] | cp);
  return n;
}

// The four hex digits of a JSON \uXXXX escape at text[pos], pos moved past them; or -1 (pos
// then somewhere inside) if there are not four.
constexpr std::int32_t parse_hex4(std::string_view text, std::size_t& pos) noexcept {
  if (text.size() - pos < 4) return -1;
  std::int32_t v = 0;
  for (int k = 0; k < 4; ++k) {
    const char h = text[pos++];
    const int d = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

}  // namespace static_attention::detail

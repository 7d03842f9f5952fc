// SPDX-License-Identifier: BSL-1.0
// GPT-2's pre-tokenizer: the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// of tiktoken's `gpt2` encoding, written out as the regex engine runs it (leftmost alternative
// first, each run greedy, the look-ahead by backing off one character). Works on well-formed
// UTF-8 only: the caller validates first.
#pragma once

#include <cstddef>
#include <string_view>

#include <static_attention/text/detail/unicode_classes.hpp>
#include <static_attention/text/detail/utf8.hpp>

namespace static_attention::detail {

// The class of a code point: \p{L}, \p{N}, \s (White_Space) or other.
constexpr code_point_class classify_code_point(char32_t c) noexcept {
  if (c < 0x80) {
    if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z')) return code_point_class::letter;
    if (c >= U'0' && c <= U'9') return code_point_class::number;
    if (c == U' ' || (c >= 0x09 && c <= 0x0D)) return code_point_class::space;
    return code_point_class::other;
  }
  std::size_t lo = 0;
  std::size_t hi = std::size(code_point_ranges);
  while (lo < hi) {  // the first range whose last >= c
    const std::size_t mid = lo + (hi - lo) / 2;
    if (code_point_ranges[mid].last < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < std::size(code_point_ranges) && code_point_ranges[lo].first <= c) return code_point_ranges[lo].cls;
  return code_point_class::other;
}

// The class of the code point at i, and its length.
struct classified {
  code_point_class cls;
  std::size_t length;
};
constexpr classified classify_at(std::string_view s, std::size_t i) noexcept {
  const std::uint32_t b = byte_at(s, i);
  if (b < 0x80u) return {classify_code_point(static_cast<char32_t>(b)), 1};
  const decoded_code_point d = decode_valid_utf8(s, i);
  return {classify_code_point(d.value), d.length};
}

// The end of the run of code points of class `cls` that starts at i (i itself included).
constexpr std::size_t run_end(std::string_view s, std::size_t i, code_point_class cls) noexcept {
  while (i < s.size()) {
    const classified c = classify_at(s, i);
    if (c.cls != cls) break;
    i += c.length;
  }
  return i;
}

// The length of the contraction ('s 't 're 've 'm 'll 'd, lower case only) at i, or 0.
constexpr std::size_t contraction_at(std::string_view s, std::size_t i) noexcept {
  if (s[i] != '\'' || i + 1 >= s.size()) return 0;
  const char c = s[i + 1];
  if (c == 's' || c == 't' || c == 'm' || c == 'd') return 2;
  if (i + 2 >= s.size()) return 0;
  const char c2 = s[i + 2];
  if ((c == 'r' && c2 == 'e') || (c == 'v' && c2 == 'e') || (c == 'l' && c2 == 'l')) return 3;
  return 0;
}

// The end of the pre-token that starts at i < s.size() of `segment` (text between special
// tokens, so that a run of white space at its end is followed by nothing).
constexpr std::size_t next_pretoken(std::string_view s, std::size_t i) noexcept {
  if (const std::size_t n = contraction_at(s, i); n != 0) return i + n;
  const classified first = classify_at(s, i);
  // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space, then a run of one class.
  if (s[i] == ' ' && i + 1 < s.size()) {
    const classified second = classify_at(s, i + 1);
    if (second.cls != code_point_class::space) return run_end(s, i + 1, second.cls);
  }
  if (first.cls != code_point_class::space) return run_end(s, i, first.cls);
  // `\s+(?!\S)`: white space up to, not including, the last one before a non-space; else `\s+`.
  std::size_t last = i;  // the start of the run's last code point
  std::size_t end = i;
  while (end < s.size()) {
    const classified c = classify_at(s, end);
    if (c.cls != code_point_class::space) break;
    last = end;
    end += c.length;
  }
  if (end == s.size() || last == i) return end;
  return last;
}

}  // namespace static_attention::detail

// SPDX-License-Identifier: BSL-1.0
// The text of a heatmap: values as a reader reads them, UTF-8 labels made safe, measured and
// fitted to a width, lengths in pixels.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <static_attention/io/detail/chars.hpp>
#include <static_attention/text/detail/utf8.hpp>

namespace static_attention::detail::heatmap {
inline int clamped_precision(int precision) noexcept { return std::clamp(precision, 0, 17); }

inline std::string fixed(double v, int precision) {
  return detail::chars_of(v, std::chars_format::fixed, clamped_precision(precision));
}

// The text of one value for a reader: -∞ for a masked score rather than -inf, and 1.00e+308
// rather than 309 digits.
inline std::string value_text(double v, int precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "\u2212\u221e" : "\u221e";
  std::string s = std::fabs(v) < 1e6 ? fixed(v, precision)
                                     : detail::chars_of(v, std::chars_format::scientific, clamped_precision(precision));
  if (s.front() == '-') s.replace(0, 1, "\u2212");  // a true minus sign, as the width of a digit
  return s;
}

// Decodes one UTF-8 code point at s[i], advancing i; an invalid sequence gives U+FFFD and
// consumes one byte, so that any bytes come out as well-formed text.
constexpr char32_t next_code_point(std::string_view s, std::size_t& i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  std::size_t len = 0;
  char32_t cp = 0;
  if (b0 < 0x80) {
    ++i;
    return b0;
  } else if ((b0 & 0xe0) == 0xc0) {
    len = 2;
    cp = b0 & 0x1fu;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3;
    cp = b0 & 0x0fu;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4;
    cp = b0 & 0x07u;
  } else {
    ++i;
    return 0xfffd;
  }
  if (i + len > s.size()) {
    ++i;
    return 0xfffd;
  }
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      ++i;
      return 0xfffd;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3fu);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not text.
  constexpr char32_t min_of_length[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_of_length[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
    ++i;
    return 0xfffd;
  }
  i += len;
  return cp;
}

inline void append_utf8(std::string& out, char32_t cp) {
  char bytes[4];
  out.append(bytes, encode_utf8(static_cast<std::uint32_t>(cp), bytes));
}

// Text as XML character data or an attribute value: markup characters escaped, and characters
// XML 1.0 forbids (control characters, broken UTF-8) replaced by U+FFFD, so xmllint accepts any
// label.
inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = next_code_point(s, i);
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default: {
        const bool allowed = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp != 0xfffe && cp != 0xffff);
        append_utf8(out, allowed ? cp : char32_t{0xfffd});
      }
    }
  }
  return out;
}

// Columns a label takes in a terminal: one per code point (tokens are rarely East Asian wide).
constexpr std::size_t text_columns(std::string_view s) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++n) next_code_point(s, i);
  return n;
}

// A control character (C0, DEL or C1), which would move a terminal's cursor or start an escape
// sequence (U+009B is CSI on some terminals).
constexpr bool is_control(char32_t cp) noexcept { return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f); }

// A label fitted to exactly `width` columns: cut with "…" when too long, padded when short, and
// stripped of control characters, which would move the terminal's cursor.
inline std::string fit(std::string_view s, std::size_t width, bool right_align = false) {
  std::string out;
  std::size_t cols = 0;
  const std::size_t total = text_columns(s);
  for (std::size_t i = 0; i < s.size() && cols < width;) {
    char32_t cp = next_code_point(s, i);
    if (total > width && cols + 1 == width) cp = 0x2026;  // …
    if (is_control(cp)) cp = 0xfffd;
    append_utf8(out, cp);
    ++cols;
  }
  const std::string pad(width - cols, ' ');
  return right_align ? pad + out : out + pad;
}

// A label centred in `width` columns, cut and stripped of control characters as by fit().
inline std::string centered(std::string_view s, std::size_t width) {
  const std::size_t cols = text_columns(s);
  if (cols >= width) return fit(s, width);
  const std::size_t left = (width - cols) / 2;
  return std::string(left, ' ') + fit(s, cols) + std::string(width - cols - left, ' ');
}

// Columns of the widest label.
inline std::size_t widest(std::span<const std::string_view> labels) noexcept {
  std::size_t n = 0;
  for (const std::string_view l : labels) n = std::max(n, text_columns(l));
  return n;
}

// A length in pixels, to one decimal: SVG coordinates need no more.
inline std::string px(double v) { return fixed(v, 1); }

}  // namespace static_attention::detail::heatmap

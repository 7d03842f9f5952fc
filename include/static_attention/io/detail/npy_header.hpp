// SPDX-License-Identifier: BSL-1.0
// The .npy preamble and header: magic string, version, header length and the Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}. Parses exactly the subset of
// Python literal syntax that numpy's writers produce, and rejects everything else with a reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <static_attention/io/detail/io_message.hpp>
#include <static_attention/io/detail/npy_result.hpp>

namespace static_attention {

/// The header of a .npy file, as written.
struct npy_header {
  int major_version = 0;  ///< 1, 2 or 3
  int minor_version = 0;  ///< always 0
  std::string descr;      ///< the dtype as numpy writes it, e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::size_t> shape;  ///< () for a scalar, (n,) for a vector, ...
  std::size_t data_offset = 0;     ///< offset of the first data byte from the start of the file
};

namespace detail {

// numpy refuses headers above this many bytes unless told otherwise (numpy.lib.format,
// max_header_size, since 1.24); so do we, so that a header length cannot make us read far.
inline constexpr std::size_t npy_max_header_size = 10000;
// numpy 1.x allows 32 dimensions, numpy 2 allows 64.
inline constexpr std::size_t npy_max_dims = 64;
inline constexpr unsigned char npy_magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

// How an input is named in messages, and what it was expected to hold, e.g.
// "w.npy" and "matrix<float, 3, 2> (dtype '<f4', shape (3, 2))".
struct npy_context {
  std::string_view name;
  std::string_view expected;
};

// "<name>: cannot read <expected>: <found>", the name shortened from its front if need be.
inline npy_error npy_fail(npy_errc code, const npy_context& ctx, std::string_view found) {
  return io_error(code, {}, ctx.name, {": cannot read ", ctx.expected, ": ", found});
}

inline std::string npy_hex_byte(unsigned value) {
  constexpr char digits[] = "0123456789abcdef";
  return std::string{"0x"} + digits[(value >> 4) & 0xfu] + digits[value & 0xfu];
}

inline std::string npy_shape_string(std::span<const std::size_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// The first bytes of the input, for messages about inputs that are not .npy files at all.
inline std::string npy_leading_bytes(std::span<const std::byte> bytes) {
  std::string s;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
    if (i > 0) s += ' ';
    s += npy_hex_byte(std::to_integer<unsigned>(bytes[i]));
  }
  return s.empty() ? std::string{"nothing"} : s;
}

inline std::size_t npy_read_le(std::span<const std::byte> bytes, std::size_t offset, std::size_t width) {
  std::size_t v = 0;
  for (std::size_t i = width; i-- > 0;) v = (v << 8) | std::to_integer<std::size_t>(bytes[offset + i]);
  return v;
}

// Checks the header text byte by byte before parsing, so that the parser only ever sees
// printable ASCII and whitespace.
inline std::optional<npy_error> npy_check_encoding(std::string_view text, int major, const npy_context& ctx) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      std::string found = "byte " + npy_hex_byte(c) + " at header offset " + std::to_string(i);
      if (major >= 3) {
        // Version 3.0 headers are UTF-8: say whether the sequence is valid at all.
        const std::size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
        bool valid = len != 0 && i + len <= text.size();
        for (std::size_t k = 1; valid && k < len; ++k)
          valid = (static_cast<unsigned char>(text[i + k]) & 0xc0u) == 0x80u;
        found += valid ? " starts a non-ASCII character; no supported header (dtype '<f4' or '<f8') contains one"
                       : " is not valid UTF-8, which version 3.0 headers must be";
      } else {
        found += " is not ASCII; version " + std::to_string(major) +
                 ".0 headers are latin1 and no supported header (dtype '<f4' or '<f8') contains such a byte";
      }
      return npy_fail(npy_errc::header_encoding, ctx, found);
    }
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f)
      return npy_fail(npy_errc::header_encoding, ctx,
                      "control character " + npy_hex_byte(c) + " at header offset " + std::to_string(i));
  }
  return std::nullopt;
}

// A recursive-descent parser for the dict literal; every method reports the first problem.
class npy_dict_parser {
 public:
  npy_dict_parser(std::string_view text, const npy_context& ctx) : text_(text), ctx_(ctx) {}

  std::optional<npy_error> parse(npy_header& out) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    if (!eat('{')) return syntax("the header does not start with '{'");
    skip_ws();
    while (!peek('}')) {
      std::string key;
      if (auto e = parse_string(key, "a key")) return e;
      skip_ws();
      if (!eat(':')) return syntax("expected ':' after key '" + key + "'");
      skip_ws();
      bool* seen = nullptr;
      if (key == "descr") {
        seen = &have_descr;
        if (peek('[') || peek('{'))
          return npy_fail(npy_errc::dtype_mismatch, ctx_, "found a structured dtype in 'descr'");
        if (auto e = parse_string(out.descr, "the value of 'descr'")) return e;
      } else if (key == "fortran_order") {
        seen = &have_fortran;
        if (auto e = parse_bool(out.fortran_order)) return e;
      } else if (key == "shape") {
        seen = &have_shape;
        if (auto e = parse_shape(out.shape)) return e;
      } else {
        return npy_fail(npy_errc::header_keys, ctx_,
                        "found unknown key '" + key + "' (a header has exactly 'descr', 'fortran_order', 'shape')");
      }
      if (*seen) return npy_fail(npy_errc::header_keys, ctx_, "found key '" + key + "' twice");
      *seen = true;
      skip_ws();
      if (eat(',')) {
        skip_ws();
        continue;
      }
      if (!peek('}')) return syntax("expected ',' or '}' after the value of '" + key + "'");
    }
    ++pos_;  // '}'
    skip_ws();
    if (pos_ != text_.size()) return syntax("unexpected text after the closing '}'");
    for (auto [present, key] :
         {std::pair{have_descr, "descr"}, std::pair{have_fortran, "fortran_order"}, std::pair{have_shape, "shape"}})
      if (!present) return npy_fail(npy_errc::header_keys, ctx_, std::string{"found no key '"} + key + "'");
    return std::nullopt;
  }

 private:
  std::optional<npy_error> syntax(const std::string& what) const {
    return npy_fail(npy_errc::malformed_header, ctx_, what + " (header offset " + std::to_string(pos_) + ")");
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  void skip_ws() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  // 'text' or "text", without escapes: no key or supported dtype needs one.
  std::optional<npy_error> parse_string(std::string& out, std::string_view what) {
    if (!peek('\'') && !peek('"')) return syntax("expected a quoted string for " + std::string{what});
    const char quote = text_[pos_++];
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return syntax("escape sequences in strings are not supported");
      if (text_[pos_] == '\n') return syntax("unterminated string");
      ++pos_;
    }
    if (pos_ == text_.size()) return syntax("unterminated string");
    out.assign(text_.substr(start, pos_ - start));
    ++pos_;
    return std::nullopt;
  }

  std::optional<npy_error> parse_bool(bool& out) {
    if (text_.substr(pos_, 4) == "True") {
      out = true;
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "False") {
      out = false;
      pos_ += 5;
    } else {
      return syntax("expected True or False for 'fortran_order'");
    }
    return std::nullopt;
  }

  // A Python tuple of non-negative decimal integers: (), (n,), (n, m), (n, m,), ...
  std::optional<npy_error> parse_shape(std::vector<std::size_t>& out) {
    if (!eat('(')) return syntax("expected a tuple for 'shape'");
    skip_ws();
    bool saw_comma = false;
    while (!peek(')')) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return syntax("expected a non-negative integer in 'shape'");
      if (text_[pos_] == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' && text_[pos_ + 1] <= '9')
        return syntax("leading zero in an integer of 'shape'");
      std::size_t v = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        const auto digit = static_cast<std::size_t>(text_[pos_] - '0');
        if (v > (std::numeric_limits<std::size_t>::max() - digit) / 10)
          return syntax("an integer in 'shape' does not fit in std::size_t");
        v = v * 10 + digit;
        ++pos_;
      }
      if (out.size() == npy_max_dims) return syntax("more than " + std::to_string(npy_max_dims) + " dimensions");
      out.push_back(v);
      skip_ws();
      saw_comma = eat(',');
      skip_ws();
      if (!saw_comma && !peek(')')) return syntax("expected ',' or ')' in 'shape'");
    }
    // "(3)" is the integer 3 in Python, not a tuple.
    if (out.size() == 1 && !saw_comma) return syntax("'shape' (n) is not a tuple; numpy writes (n,)");
    ++pos_;  // ')'
    return std::nullopt;
  }

  std::string_view text_;
  const npy_context& ctx_;
  std::size_t pos_ = 0;
};

// Parses the preamble and header of a .npy file held in bytes; does not look at the data.
inline npy_result<npy_header> parse_npy_header(std::span<const std::byte> bytes, const npy_context& ctx) {
  const std::size_t magic_len = std::size(npy_magic);
  for (std::size_t i = 0; i < magic_len && i < bytes.size(); ++i)
    if (std::to_integer<unsigned>(bytes[i]) != npy_magic[i])
      return npy_fail(
          npy_errc::bad_magic, ctx,
          "found bytes " + npy_leading_bytes(bytes) + " where the magic string \\x93NUMPY belongs; not a .npy file");
  if (bytes.size() < magic_len + 2)
    return npy_fail(npy_errc::truncated_header, ctx,
                    "the input ends after " + std::to_string(bytes.size()) + " bytes, inside the preamble");
  npy_header h;
  h.major_version = std::to_integer<int>(bytes[6]);
  h.minor_version = std::to_integer<int>(bytes[7]);
  if (h.minor_version != 0 || h.major_version < 1 || h.major_version > 3)
    return npy_fail(npy_errc::unsupported_version, ctx,
                    "found format version " + std::to_string(h.major_version) + "." + std::to_string(h.minor_version) +
                        "; supported are 1.0, 2.0 and 3.0");
  const std::size_t len_width = h.major_version == 1 ? 2 : 4;
  const std::size_t preamble = magic_len + 2 + len_width;
  if (bytes.size() < preamble)
    return npy_fail(npy_errc::truncated_header, ctx,
                    "the input ends after " + std::to_string(bytes.size()) + " bytes, inside the header length");
  const std::size_t header_len = npy_read_le(bytes, magic_len + 2, len_width);
  if (header_len > npy_max_header_size)
    return npy_fail(npy_errc::header_too_large, ctx,
                    "found a header of " + std::to_string(header_len) + " bytes; the limit is " +
                        std::to_string(npy_max_header_size) + " (numpy's max_header_size)");
  if (bytes.size() - preamble < header_len)
    return npy_fail(npy_errc::truncated_header, ctx,
                    "found " + std::to_string(bytes.size() - preamble) + " of the header's " +
                        std::to_string(header_len) + " bytes");
  const std::string_view text{reinterpret_cast<const char*>(bytes.data() + preamble), header_len};
  if (auto e = npy_check_encoding(text, h.major_version, ctx)) return std::move(*e);
  if (auto e = npy_dict_parser{text, ctx}.parse(h)) return std::move(*e);
  h.data_offset = preamble + header_len;
  return h;
}

}  // namespace detail
}  // namespace static_attention

// SPDX-License-Identifier: BSL-1.0
// The header of a safetensors file (https://github.com/huggingface/safetensors): an 8-byte
// little-endian length N, then N bytes of JSON, a single object whose entries are tensors
// {"dtype": "F32", "shape": [768, 2304], "data_offsets": [begin, end]} and possibly one
// "__metadata__" entry, an object of strings; then the data, the offsets counting from the end
// of the header. Parses exactly that: JSON (RFC 8259) strings with every escape, integers, the
// three keys of a tensor, and nothing else; then checks that the tensors' byte ranges agree with
// their shapes and tile the data exactly, with no gap and no overlap.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <static_attention/core/result.hpp>
#include <static_attention/text/detail/utf8.hpp>

namespace static_attention::detail {

// The safetensors format's limit on the header (the reference implementation's MAX_HEADER_SIZE).
inline constexpr std::uint64_t safetensors_max_header = 100'000'000;
// More dimensions than any tensor has; a longer shape is refused rather than stored.
inline constexpr std::size_t safetensors_max_dims = 64;

// One tensor of the header.
struct safetensors_tensor {
  std::string name;
  std::string dtype;      // "F32", "BF16", ...
  std::size_t width = 0;  // bytes per element
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;  // relative to the first data byte
};

// The parsed header: the tensors in the order written, and the metadata.
struct safetensors_header {
  std::vector<safetensors_tensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
};

// A problem with a header: a code, what is wrong, and the key at fault (if any).
struct safetensors_problem {
  errc code{};
  std::string what;
  std::string key;
};

// The bytes per element of a dtype the format defines, or 0 for a name it does not.
inline std::size_t safetensors_width(std::string_view dtype) noexcept {
  constexpr std::pair<std::string_view, std::size_t> widths[] = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"I64", 8},     {"U64", 8}, {"F64", 8}};
  for (const auto& [name, width] : widths)
    if (name == dtype) return width;
  return 0;
}

// A recursive-descent parser for the header's JSON; every method reports the first problem.
class safetensors_parser {
 public:
  explicit safetensors_parser(std::string_view text) : text_(text) {}

  std::optional<safetensors_problem> parse(safetensors_header& out) {
    if (!eat('{')) return syntax("the header does not begin with '{'");
    skip_ws();
    bool have_metadata = false;
    while (!peek('}')) {
      std::string key;
      if (auto e = parse_string(key)) return e;
      if (auto e = colon()) return e;
      if (key == "__metadata__") {
        if (have_metadata) return keys("found '__metadata__' twice", key);
        have_metadata = true;
        if (auto e = parse_metadata(out.metadata)) return e;
      } else {
        safetensors_tensor t;
        t.name = std::move(key);
        if (auto e = parse_tensor(t)) return e;
        out.tensors.push_back(std::move(t));
      }
      if (auto e = comma_or('}')) return e;
    }
    ++pos_;
    while (pos_ < text_.size() && is_ws(text_[pos_])) ++pos_;
    if (pos_ != text_.size()) return syntax("found text after the header's closing '}'");
    return std::nullopt;
  }

 private:
  static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  void skip_ws() {
    while (pos_ < text_.size() && is_ws(text_[pos_])) ++pos_;
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  safetensors_problem syntax(std::string what) const {
    return {errc::malformed_header, what + " (header offset " + std::to_string(pos_) + ")", {}};
  }
  static safetensors_problem keys(std::string what, const std::string& key) {
    return {errc::header_keys, std::move(what), key};
  }
  std::optional<safetensors_problem> colon() {
    skip_ws();
    if (!eat(':')) return syntax("expected ':' after a key");
    skip_ws();
    return std::nullopt;
  }
  // After a member or an element: ',' and more, or the closing bracket (left to the caller).
  std::optional<safetensors_problem> comma_or(char close) {
    skip_ws();
    if (eat(',')) {
      skip_ws();
      if (peek(close)) return syntax(std::string{"found ',' before '"} + close + "'");
      return std::nullopt;
    }
    if (!peek(close)) return syntax(std::string{"expected ',' or '"} + close + "'");
    return std::nullopt;
  }

  // Four hex digits of a \u escape.
  std::optional<std::uint32_t> hex4() {
    const std::int32_t v = parse_hex4(text_, pos_);
    if (v < 0) return std::nullopt;
    return static_cast<std::uint32_t>(v);
  }
  static void put_utf8(std::string& out, std::uint32_t cp) {
    char bytes[4];
    out.append(bytes, encode_utf8(cp, bytes));
  }
  // \uXXXX, with a surrogate pair for characters past U+FFFF.
  std::optional<safetensors_problem> unicode_escape(std::string& out) {
    const auto high = hex4();
    if (!high) return syntax("expected four hex digits after \\u");
    std::uint32_t cp = *high;
    if (cp >= 0xdc00 && cp <= 0xdfff) return syntax("found a lone low surrogate in a \\u escape");
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (!eat('\\') || !eat('u')) return syntax("found a high surrogate without its low surrogate");
      const auto low = hex4();
      if (!low || *low < 0xdc00 || *low > 0xdfff) return syntax("found a high surrogate without its low surrogate");
      cp = 0x10000 + ((cp - 0xd800) << 10) + (*low - 0xdc00);
    }
    put_utf8(out, cp);
    return std::nullopt;
  }
  // The length of the UTF-8 sequence at pos_ (1 to 4), or 0 if it is not valid UTF-8.
  std::size_t utf8_length() const {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(text_[pos_ + i]); };
    const unsigned c = b(0);
    const std::size_t len = c < 0x80                 ? 1
                            : c >= 0xc2 && c <= 0xdf ? 2
                            : c >= 0xe0 && c <= 0xef ? 3
                            : c >= 0xf0 && c <= 0xf4 ? 4
                                                     : 0;
    if (len == 0 || text_.size() - pos_ < len) return 0;
    for (std::size_t k = 1; k < len; ++k)
      if ((b(k) & 0xc0u) != 0x80u) return 0;
    if (len == 3 && ((c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) > 0x9f))) return 0;  // overlong, surrogates
    if (len == 4 && ((c == 0xf0 && b(1) < 0x90) || (c == 0xf4 && b(1) > 0x8f))) return 0;  // overlong, > U+10FFFF
    return len;
  }
  std::optional<safetensors_problem> parse_string(std::string& out) {
    if (!eat('"')) return syntax("expected a string");
    while (pos_ < text_.size() && text_[pos_] != '"') {
      const char c = text_[pos_];
      if (static_cast<unsigned char>(c) < 0x20) return syntax("found a control character in a string");
      if (c == '\\') {
        if (++pos_ == text_.size()) break;
        const char e = text_[pos_++];
        constexpr std::string_view from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
        if (e == 'u') {
          if (auto problem = unicode_escape(out)) return problem;
        } else if (const std::size_t k = from.find(e); k != std::string_view::npos) {
          out += to[k];
        } else {
          return syntax("found an unknown escape in a string");
        }
        continue;
      }
      const std::size_t len = utf8_length();
      if (len == 0)
        return {{errc::header_encoding, "found a byte that is not UTF-8 at header offset " + std::to_string(pos_), {}}};
      out.append(text_.substr(pos_, len));
      pos_ += len;
    }
    if (!eat('"')) return syntax("found an unterminated string");
    return std::nullopt;
  }

  // A JSON number that must be a non-negative integer below 2^64.
  std::optional<safetensors_problem> parse_count(std::uint64_t& out, const std::string& key, std::string_view field) {
    const std::size_t start = pos_;
    const bool negative = eat('-');
    std::uint64_t v = 0;
    bool overflow = false;
    std::size_t digits = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const auto d = static_cast<std::uint64_t>(text_[pos_++] - '0');
      overflow = overflow || v > (std::numeric_limits<std::uint64_t>::max() - d) / 10;
      v = v * 10 + d;
      ++digits;
    }
    if (digits == 0) return syntax("expected an integer in '" + std::string{field} + "' of tensor '" + key + "'");
    if (digits > 1 && text_[start + (negative ? 1 : 0)] == '0') return syntax("found a leading zero in an integer");
    if (peek('.') || peek('e') || peek('E'))
      return syntax("found a number that is not an integer in '" + std::string{field} + "' of tensor '" + key + "'");
    if (negative && v != 0)
      return keys("found a negative number in '" + std::string{field} + "' of tensor '" + key + "'", key);
    if (overflow) return keys("found a number past 2^64 in '" + std::string{field} + "' of tensor '" + key + "'", key);
    out = v;
    return std::nullopt;
  }
  std::optional<safetensors_problem> parse_counts(std::vector<std::uint64_t>& out, const std::string& key,
                                                  std::string_view field) {
    if (!eat('[')) return syntax("expected an array for '" + std::string{field} + "' of tensor '" + key + "'");
    skip_ws();
    while (!peek(']')) {
      if (out.size() == safetensors_max_dims)
        return keys("found more than " + std::to_string(safetensors_max_dims) + " numbers in '" + std::string{field} +
                        "' of tensor '" + key + "'",
                    key);
      std::uint64_t v = 0;
      if (auto e = parse_count(v, key, field)) return e;
      out.push_back(v);
      if (auto e = comma_or(']')) return e;
    }
    ++pos_;
    return std::nullopt;
  }

  std::optional<safetensors_problem> parse_tensor(safetensors_tensor& t) {
    if (!eat('{')) return syntax("expected an object for tensor '" + t.name + "'");
    skip_ws();
    bool have_dtype = false, have_shape = false, have_offsets = false;
    std::vector<std::uint64_t> offsets;
    while (!peek('}')) {
      std::string field;
      if (auto e = parse_string(field)) return e;
      if (auto e = colon()) return e;
      bool* seen = field == "dtype"          ? &have_dtype
                   : field == "shape"        ? &have_shape
                   : field == "data_offsets" ? &have_offsets
                                             : nullptr;
      if (seen == nullptr)
        return keys(
            "found unknown field '" + field + "' in tensor '" + t.name + "' (a tensor has dtype, shape, data_offsets)",
            t.name);
      if (*seen) return keys("found field '" + field + "' twice in tensor '" + t.name + "'", t.name);
      *seen = true;
      if (seen == &have_dtype) {
        if (auto e = parse_string(t.dtype)) return e;
      } else if (auto e = parse_counts(seen == &have_shape ? t.shape : offsets, t.name, field)) {
        return e;
      }
      if (auto e = comma_or('}')) return e;
    }
    ++pos_;
    if (!have_dtype || !have_shape || !have_offsets)
      return keys("tensor '" + t.name + "' lacks '" +
                      (!have_dtype   ? "dtype"
                       : !have_shape ? "shape"
                                     : "data_offsets") +
                      "'",
                  t.name);
    if (offsets.size() != 2) return keys("'data_offsets' of tensor '" + t.name + "' is not [begin, end]", t.name);
    t.begin = offsets[0];
    t.end = offsets[1];
    return std::nullopt;
  }

  std::optional<safetensors_problem> parse_metadata(std::vector<std::pair<std::string, std::string>>& out) {
    if (!eat('{')) return syntax("expected an object of strings for '__metadata__'");
    skip_ws();
    while (!peek('}')) {
      std::pair<std::string, std::string> entry;
      if (auto e = parse_string(entry.first)) return e;
      if (auto e = colon()) return e;
      if (!peek('"')) return syntax("expected a string value in '__metadata__'");
      if (auto e = parse_string(entry.second)) return e;
      out.push_back(std::move(entry));
      if (auto e = comma_or('}')) return e;
    }
    ++pos_;
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// Each tensor's dtype known and its byte range that of its shape.
inline std::optional<safetensors_problem> safetensors_check_tensor(safetensors_tensor& t) {
  t.width = safetensors_width(t.dtype);
  if (t.width == 0)
    return safetensors_problem{errc::dtype_mismatch, "tensor '" + t.name + "' has unknown dtype '" + t.dtype + "'",
                               t.name};
  // A zero dimension means no elements, whatever the others say.
  const bool empty = std::find(t.shape.begin(), t.shape.end(), std::uint64_t{0}) != t.shape.end();
  std::uint64_t bytes = empty ? 0 : t.width;
  bool overflow = false;
  for (const std::uint64_t d : t.shape) {
    if (empty || overflow) break;
    overflow = bytes > std::numeric_limits<std::uint64_t>::max() / d;
    if (!overflow) bytes *= d;
  }
  if (t.end < t.begin)
    return safetensors_problem{errc::malformed_header,
                               "tensor '" + t.name + "' has data_offsets [" + std::to_string(t.begin) + ", " +
                                   std::to_string(t.end) + "], which end before they begin",
                               t.name};
  if (overflow || t.end - t.begin != bytes)
    return safetensors_problem{errc::malformed_header,
                               "tensor '" + t.name + "' has data_offsets [" + std::to_string(t.begin) + ", " +
                                   std::to_string(t.end) + "], not the " +
                                   (overflow ? std::string{"(over 2^64)"} : std::to_string(bytes)) +
                                   " bytes its shape and dtype " + t.dtype + " need",
                               t.name};
  return std::nullopt;
}

// The tensors' byte ranges tile [0, data_size) exactly, and no name is repeated.
inline std::optional<safetensors_problem> safetensors_check_layout(const safetensors_header& h,
                                                                   std::uint64_t data_size) {
  std::vector<const safetensors_tensor*> order;
  for (const auto& t : h.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  for (std::size_t i = 1; i < order.size(); ++i)
    if (order[i]->name == order[i - 1]->name)
      return safetensors_problem{errc::header_keys, "found tensor '" + order[i]->name + "' twice", order[i]->name};
  std::sort(order.begin(), order.end(),
            [](const auto* a, const auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
  std::uint64_t at = 0;
  for (const auto* t : order) {
    if (t->begin != at)
      return safetensors_problem{errc::malformed_header,
                                 "tensor '" + t->name + "' begins at data offset " + std::to_string(t->begin) +
                                     ", where the data so far end at " + std::to_string(at) +
                                     (t->begin > at ? ": a gap" : ": an overlap"),
                                 t->name};
    at = t->end;
  }
  if (at > data_size)
    return safetensors_problem{errc::truncated_data,
                               "tensor '" + order.back()->name + "' ends at data offset " + std::to_string(at) +
                                   ", past the " + std::to_string(data_size) + " data bytes of the file",
                               order.back()->name};
  if (at < data_size)
    return safetensors_problem{errc::trailing_bytes,
                               "the tensors need " + std::to_string(at) + " data bytes and the file has " +
                                   std::to_string(data_size) + ": bytes no tensor owns",
                               {}};
  return std::nullopt;
}

// Parses the header text and checks it against the data's size.
inline std::optional<safetensors_problem> parse_safetensors_header(std::string_view text, std::uint64_t data_size,
                                                                   safetensors_header& out) {
  if (auto e = safetensors_parser{text}.parse(out)) return e;
  for (auto& t : out.tensors)
    if (auto e = safetensors_check_tensor(t)) return e;
  return safetensors_check_layout(out, data_size);
}

}  // namespace static_attention::detail

// SPDX-License-Identifier: BSL-1.0
// Reading OpenAI's GPT-2 vocabulary files: encoder.json (a JSON object from each token, written
// in GPT-2's byte-to-unicode alphabet, to its id) and vocab.bpe (the 50000 merges in rank order),
// each checked line by line, then the tables a gpt2_tokenizer views. Used by
// load_gpt2_tokenizer and by tools/embed_gpt2_vocab.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <static_attention/core/result.hpp>
#include <static_attention/text/detail/utf8.hpp>
#include <static_attention/text/gpt2_tokenizer.hpp>

namespace static_attention::detail {

// The file as it appears in messages: its path, or its name if the path is long.
inline std::string vocab_file_label(const std::filesystem::path& path) {
  std::string s = path.string();
  return s.size() <= 96 ? s : path.filename().string();
}

// The whole of a file of at most `limit` bytes.
inline result<std::string> read_vocab_file(const std::filesystem::path& path, std::size_t limit) {
  const std::string label = vocab_file_label(path);
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    return make_error(errc::file_unreadable, label, ": not a regular file");
  errno = 0;
  std::FILE* f = std::fopen(path.string().c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) return make_error(errc::file_not_found, label, ": no such file");
    return make_error(errc::file_unreadable, label, ": cannot open: ", err != 0 ? std::strerror(err) : "unknown error");
  }
  std::string text;
  char buf[1 << 16];
  bool failed = false;
  for (;;) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f);
    text.append(buf, got);
    if (text.size() > limit) break;
    if (got < sizeof buf) {
      failed = std::ferror(f) != 0;
      break;
    }
  }
  std::fclose(f);
  if (failed) return make_error(errc::file_unreadable, label, ": read error");
  if (text.size() > limit) return make_error(errc::too_large, label, ": larger than ", limit, " bytes");
  return text;
}

// GPT-2's byte-to-unicode map, inverted: the byte a code point of encoder.json and vocab.bpe
// stands for, or -1. Bytes that print ('!'..'~', U+00A1..U+00AC, U+00AE..U+00FF) stand for
// themselves; the other 68, in byte order, are U+0100 onwards.
inline int gpt2_unicode_to_byte(char32_t c) noexcept {
  const auto prints = [](std::uint32_t b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; };
  if (c < 0x100) return prints(c) ? static_cast<int>(c) : -1;
  std::uint32_t n = c - 0x100;
  for (std::uint32_t b = 0; b < 0x100; ++b)
    if (!prints(b) && n-- == 0) return static_cast<int>(b);
  return -1;
}

// The bytes a token written in the byte-to-unicode alphabet stands for; false if a character
// is not in that alphabet (or the text is not UTF-8).
inline bool gpt2_alphabet_to_bytes(std::string_view text, std::string& bytes) {
  bytes.clear();
  for (std::size_t i = 0; i < text.size();) {
    const utf8_scan scan = scan_utf8(text, i);
    if (scan.status != utf8_status::ok) return false;
    const int b = gpt2_unicode_to_byte(decode_valid_utf8(text, i).value);
    if (b < 0) return false;
    bytes.push_back(static_cast<char>(b));
    i += scan.length;
  }
  return true;
}

// A vocabulary as read: each token's bytes by id, and where in encoder.json its key starts
// (byte offset + 1; 0: no such id yet).
struct gpt2_vocab_text {
  std::vector<std::string> tokens;
  std::vector<std::size_t> where;
};

// "<label>:<line>:<column>" of a byte offset of `text` (OpenAI's encoder.json is one line, so
// the column is what locates a key).
struct text_position {
  std::size_t line;
  std::size_t column;
};
inline text_position position_in(std::string_view text, std::size_t offset) noexcept {
  text_position p{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}
template <class... Parts>
error error_at(std::string_view label, std::string_view text, std::size_t offset, const Parts&... parts) {
  const text_position p = position_in(text, offset);
  return make_error(errc::malformed_line, label, ":", p.line, ":", p.column, ": ", parts...);
}

// A reader of encoder.json: one flat object of strings to integers, as OpenAI writes it.
class encoder_json_parser {
 public:
  encoder_json_parser(std::string_view text, std::string label) : text_(text), label_(std::move(label)) {}

  result<gpt2_vocab_text> parse() {
    gpt2_vocab_text v{std::vector<std::string>(gpt2_vocab_size), std::vector<std::size_t>(gpt2_vocab_size, 0)};
    skip_space();
    if (!eat('{')) return fail("expected '{' to open the object");
    skip_space();
    if (eat('}')) return fail("the object is empty");
    std::string key;
    std::string bytes;
    for (;;) {
      skip_space();
      const std::size_t key_at = pos_;
      if (auto e = parse_string(key)) return *e;
      skip_space();
      if (!eat(':')) return fail("expected ':' after a key");
      skip_space();
      std::size_t id = 0;
      if (auto e = parse_id(id)) return *e;
      if (!gpt2_alphabet_to_bytes(key, bytes))
        return fail_at(key_at, "a key with a character outside GPT-2's byte alphabet");
      if (v.where[id] != 0) {
        const text_position first = position_in(text_, v.where[id] - 1);
        return fail_at(key_at, "id ", id, " again (first at ", first.line, ":", first.column, ")");
      }
      v.tokens[id] = bytes;
      v.where[id] = key_at + 1;
      skip_space();
      if (eat('}')) break;
      if (!eat(',')) return fail("expected ',' or '}' after a value");
    }
    skip_space();
    if (pos_ != text_.size()) return fail("text after the object");
    for (std::size_t id = 0; id < gpt2_vocab_size; ++id)
      if (v.where[id] == 0) return fail_at(pos_, "no token has id ", id, " (GPT-2 has ids 0 to 50256)");
    return v;
  }

 private:
  template <class... Parts>
  error fail_at(std::size_t offset, const Parts&... parts) const {
    return error_at(label_, text_, offset, parts...);
  }
  template <class... Parts>
  error fail(const Parts&... parts) const {
    return fail_at(pos_, parts...);
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  // A JSON string into UTF-8.
  std::optional<error> parse_string(std::string& out) {
    out.clear();
    if (!eat('"')) return fail("expected a string key");
    for (;;) {
      if (pos_ >= text_.size()) return fail("the file ends inside a string");
      const char c = text_[pos_++];
      if (c == '"') return std::nullopt;
      if (static_cast<unsigned char>(c) < 0x20) return fail("a control character inside a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return fail("the file ends inside a string");
      const char e = text_[pos_++];
      const std::string_view simple = "\"\\/bfnrt";
      const std::string_view meant = "\"\\/\b\f\n\r\t";
      if (const auto k = simple.find(e); k != std::string_view::npos) {
        out.push_back(meant[k]);
      } else if (e == 'u') {
        if (auto err = parse_unicode_escape(out)) return err;
      } else {
        return fail("an unknown escape '\\", std::string_view(&e, 1), "'");
      }
    }
  }
  // The XXXX of \uXXXX, as UTF-8 (surrogates are refused: GPT-2's alphabet has none).
  std::optional<error> parse_unicode_escape(std::string& out) {
    const std::int32_t v = parse_hex4(text_, pos_);
    if (v < 0) return fail("a \\u escape without four hex digits");
    const auto cp = static_cast<std::uint32_t>(v);
    if (cp >= 0xD800 && cp <= 0xDFFF) return fail("a surrogate \\u escape, outside GPT-2's byte alphabet");
    char bytes[4];
    out.append(bytes, encode_utf8(cp, bytes));
    return std::nullopt;
  }
  // A token id: digits, no sign, no fraction, below 50257.
  std::optional<error> parse_id(std::size_t& id) {
    const std::size_t begin = pos_;
    id = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      id = id * 10 + static_cast<std::size_t>(text_[pos_++] - '0');
      if (id >= gpt2_vocab_size) return fail("an id over 50256 (GPT-2 has 50257 tokens)");
    }
    if (pos_ == begin) return fail("expected a token id (a non-negative integer)");
    if (pos_ - begin > 1 && text_[begin] == '0') return fail("an id with a leading zero");
    if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E'))
      return fail("an id that is not an integer");
    return std::nullopt;
  }

  std::string_view text_;
  std::string label_;
  std::size_t pos_ = 0;
};

// Checks vocab.bpe against the tokens: after an optional "#version" line, line k holds merge
// k - 1 (0-based) as "<left> <right>", whose bytes joined must be token 256 + that index.
inline result<void> check_vocab_bpe(std::string_view text, const std::string& label, const gpt2_vocab_text& v) {
  constexpr std::size_t merges = gpt2_vocab_size - 257;
  std::size_t line = 0;
  std::size_t merge = 0;
  std::string left;
  std::string right;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view s = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (line == 1 && s.starts_with("#version")) continue;
    const auto fail = [&](auto... parts) { return make_error(errc::malformed_line, label, ":", line, ": ", parts...); };
    if (merge == merges) return fail("more than 50000 merges");
    const std::size_t space = s.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == s.size() ||
        s.find(' ', space + 1) != std::string_view::npos)
      return fail("expected two tokens separated by one space");
    if (!gpt2_alphabet_to_bytes(s.substr(0, space), left) || !gpt2_alphabet_to_bytes(s.substr(space + 1), right))
      return fail("a character outside GPT-2's byte alphabet");
    const std::size_t id = 256 + merge;
    if (left + right != v.tokens[id]) return fail("merge ", merge, " does not make token ", id, " of the encoder file");
    ++merge;
  }
  if (merge != merges)
    return make_error(errc::malformed_line, label, ":", line, ": ", merge, " merges; GPT-2 has 50000");
  return {};
}

// The tables of a checked vocabulary, owned.
struct gpt2_vocab_storage {
  std::vector<char> bytes;
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint16_t> slots;
};

// Builds the tables; an error names the line of a token that is not unique or of a first-256
// token that is not one byte.
inline result<gpt2_vocab_storage> build_gpt2_tables(const gpt2_vocab_text& v, const std::string& label,
                                                    std::string_view json) {
  const auto fail = [&](std::size_t id, auto... parts) { return error_at(label, json, v.where[id] - 1, parts...); };
  gpt2_vocab_storage s;
  s.offsets.reserve(gpt2_vocab_size + 1);
  for (std::size_t id = 0; id < gpt2_vocab_size; ++id) {
    const std::string& t = v.tokens[id];
    if (id < 256 && t.size() != 1)
      return fail(id, "token ", id, " is ", t.size(), " bytes; GPT-2's first 256 tokens are single bytes");
    if (id == gpt2_end_of_text && t != gpt2_end_of_text_text) return fail(id, "token 50256 is not <|endoftext|>");
    if (t.empty()) return fail(id, "an empty token");
    s.offsets.push_back(static_cast<std::uint32_t>(s.bytes.size()));
    s.bytes.insert(s.bytes.end(), t.begin(), t.end());
  }
  s.offsets.push_back(static_cast<std::uint32_t>(s.bytes.size()));
  s.slots.assign(gpt2_hash_slot_count, no_rank);
  constexpr std::size_t mask = gpt2_hash_slot_count - 1;
  for (std::size_t id = 0; id < gpt2_end_of_text; ++id) {
    const std::string& t = v.tokens[id];
    std::size_t slot = gpt2_token_hash(t) & mask;
    for (; s.slots[slot] != no_rank; slot = (slot + 1) & mask)
      if (v.tokens[s.slots[slot]] == t) return fail(id, "token ", id, " repeats token ", s.slots[slot]);
    s.slots[slot] = static_cast<std::uint16_t>(id);
  }
  return s;
}

}  // namespace static_attention::detail

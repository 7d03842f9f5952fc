// SPDX-License-Identifier: BSL-1.0
// Run-time truth: every malformed encoder.json or vocab.bpe is an error value naming the file and
// the line (and, for the one-line encoder.json, the column); a missing file is file_not_found.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include <static_attention/io/tokenizer_files.hpp>

namespace sa = static_attention;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), {}};
}
const std::string encoder_path = SA_GPT2_VOCAB_DIR "/encoder.json";
const std::string merges_path = SA_GPT2_VOCAB_DIR "/vocab.bpe";
const std::string& encoder() {
  static const std::string text = read(encoder_path);
  return text;
}
const std::string& merges() {
  static const std::string text = read(merges_path);
  return text;
}

// Writes `text` to a scratch file named `name` and returns its path.
std::string scratch(const std::string& name, const std::string& text) {
  const std::string path = std::string(SA_TEXT_SCRATCH_DIR) + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The load fails with `code` and a message containing `part`.
void check_error(const std::string& json, const std::string& bpe, sa::errc code, std::string_view part) {
  const auto tok = sa::load_gpt2_tokenizer(json, bpe);
  REQUIRE(!tok);
  CAPTURE(tok.error().message.c_str());
  CHECK(tok.error().code == code);
  CHECK(tok.error().message.find(part) != sa::error_message::npos);
}

}  // namespace

TEST_CASE("missing files") {
  check_error(SA_TEXT_SCRATCH_DIR "/no_such_encoder.json", merges_path, sa::errc::file_not_found,
              "no_such_encoder.json: no such file");
  check_error(encoder_path, SA_TEXT_SCRATCH_DIR "/no_such_vocab.bpe", sa::errc::file_not_found, "no_such_vocab.bpe");
  check_error(SA_TEXT_SCRATCH_DIR, merges_path, sa::errc::file_unreadable, "not a regular file");
}

TEST_CASE("malformed encoder.json: the error names the file, line and column") {
  const auto e = sa::errc::malformed_line;
  check_error(scratch("cut.json", encoder().substr(0, 1000)), merges_path, e, "cut.json:1:1001: ");
  check_error(scratch("dup.json", replaced(encoder(), "\"!\": 0", "\"!\": 1")), merges_path, e, "id 1 again (first at 1:2)");
  check_error(scratch("big.json", replaced(encoder(), "\"!\": 0", "\"!\": 50257")), merges_path, e, "an id over 50256");
  check_error(scratch("neg.json", replaced(encoder(), "\"!\": 0", "\"!\": -0")), merges_path, e, "neg.json:1:7: expected a token id");
  check_error(scratch("alpha.json", replaced(encoder(), "\"!\": 0", "\" \": 0")), merges_path, e, "alpha.json:1:2: a key with a character outside");
  check_error(scratch("two.json", replaced(encoder(), "\"!\": 0", "\"!!\": 0")), merges_path, e, "token 0 is 2 bytes");
  check_error(scratch("eot.json", replaced(encoder(), "\"<|endoftext|>\": 50256", "\"<|endoftext|>\": 50255")), merges_path, e,
              "id 50255 again");
  check_error(scratch("lines.json", "{\n\"a\": 0,\n\"b\" 1}"), merges_path, e, "lines.json:3:5: expected ':'");
  check_error(scratch("trail.json", encoder() + "x"), merges_path, e, "text after the object");
  check_error(scratch("esc.json", replaced(encoder(), "\"!\": 0", "\"\\q\": 0")), merges_path, e, "an unknown escape");
}

TEST_CASE("malformed vocab.bpe: the error names the file and line") {
  const auto e = sa::errc::malformed_line;
  check_error(encoder_path, scratch("one.bpe", replaced(merges(), "\u0120 a\n", "\u0120a\n")), e,
              "one.bpe:3: expected two tokens separated by one space");
  check_error(encoder_path, scratch("swap.bpe", replaced(merges(), "\u0120 t\n\u0120 a\n", "\u0120 a\n\u0120 t\n")), e,
              "swap.bpe:2: merge 0 does not make token 256");
  check_error(encoder_path, scratch("short.bpe", merges().substr(0, merges().rfind('\n', merges().size() - 2) + 1)), e, "GPT-2 has 50000");
  check_error(encoder_path, scratch("long.bpe", merges() + "a b\n"), e, "more than 50000 merges");
  check_error(encoder_path, scratch("crlf.bpe", replaced(merges(), "\u0120 t\n", "\u0120 t\r\n")), e, "crlf.bpe:2: ");
}

TEST_CASE("OpenAI's files load") {
  const auto tok = sa::load_gpt2_tokenizer(encoder_path, merges_path);
  REQUIRE(tok);
  CHECK(tok->token(50256) == "<|endoftext|>");
  CHECK(tok->find(" the") == std::optional<std::size_t>(262));
}

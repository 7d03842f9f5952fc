// SPDX-License-Identifier: BSL-1.0
// What the notebook tests share: Python's print and the few formats the cells use, GPT-2's
// tokenizer files, and the comparison of a cell's printout with its stored text (torch 1.13's,
// <id>.torch1.13.txt, where the notebook's torch 2.x printed other digits).
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <static_attention/io/print.hpp>
#include <static_attention/io/tokenizer_files.hpp>
#include <string>
#include <string_view>

namespace book {

namespace sa = static_attention;

// --- Python's print, and the few Python formats the cells use ---------------------------------

// print(a, b, ...): the arguments' str() joined by spaces, then a newline.
struct py_out {
  std::ostringstream os;
  template <class... A>
  void print(const A&... args) {
    bool first = true;
    ((os << (first ? "" : " ") << args, first = false), ...);
    os << '\n';
  }
};

// f"{n:,}".
inline std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k != 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

// f"{x:.2f}" and repr(x) of a Python float.
inline std::string fixed2(double x) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::fixed, 2);
  return std::string(buf.data(), r.ptr);
}
inline std::string py_repr(double x) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x);
  std::string s(buf.data(), r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// A printout with torch's grad_fn suffix, for the tensors the notebook's autograd produced.
template <class M>
std::string grad(const M& m, std::string_view grad_fn) {
  return sa::to_string(m, {.grad_fn = grad_fn});
}

// GPT-2's vocabulary files, read at run time (third_party/gpt2-vocab/).
inline const sa::loaded_gpt2_tokenizer& tokenizer() {
  static const auto tok = sa::load_gpt2_tokenizer(SA_GPT2_VOCAB_DIR "/encoder.json", SA_GPT2_VOCAB_DIR "/vocab.bpe");
  REQUIRE(tok.has_value());
  return *tok;
}
template <std::size_t N>
std::array<std::int64_t, N> encode(std::string_view text) {
  std::array<std::int64_t, N> ids{};
  const auto n = tokenizer().encode(text, std::span<std::int64_t>(ids));
  REQUIRE(n.has_value());
  CHECK(*n == N);
  return ids;
}

// The stored text of a cell: torch 1.13's (<id>.torch1.13.txt) where the notebook's torch 2.x
// printed other digits, else the notebook's own (<id>.txt).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline bool has_torch113_text(std::string_view id) {
  return std::ifstream(std::string(SA_BOOK_EXPECTED_DIR "/") + std::string(id) + ".torch1.13.txt").good();
}
inline std::string expected(std::string_view id) {
  const std::string base = std::string(SA_BOOK_EXPECTED_DIR "/") + std::string(id);
  const std::string text = read_text(base + (has_torch113_text(id) ? ".torch1.13.txt" : ".txt"));
  REQUIRE(!text.empty());
  return text;
}

/// One cell: its id (the expected file's name) and the function printing what the cell prints.
struct cell {
  std::string_view id;
  std::string (*printout)();
};

/// Every cell's printout against its stored text; reports how many match.
template <std::size_t N>
void compare_cells(const cell (&cells)[N]) {
  std::size_t matched = 0, as_torch113 = 0;
  for (const cell& c : cells) {
    const std::string got = c.printout();
    INFO("cell " << c.id);
    CHECK(got == expected(c.id));
    if (got == expected(c.id)) ++matched;
    if (got == expected(c.id) && has_torch113_text(c.id)) ++as_torch113;
  }
  MESSAGE(matched << " of " << N << " cells reproduced, " << as_torch113
                  << " of them as torch 1.13 prints them (docs/book-outputs.md)");
}

}  // namespace book

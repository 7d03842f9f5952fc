// SPDX-License-Identifier: BSL-1.0
// What the notebook tests share: Python's print and the few formats the cells use, GPT-2's
// tokenizer files, and the comparison of a cell's printout with its stored text (torch 1.13's,
// <id>.torch1.13.txt, where the notebook's torch 2.x printed other digits).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>
#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/io/tokenizer_files.hpp>
#include <string>
#include <string_view>
#include <vector>

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

// --- Fused builds: the last printed digit may move -------------------------------------------
// Where the target has FMA the matrix kernels fuse each multiply-add (core/detail/fp_contract.hpp):
// sums rounded once a step, where the notebooks' torch printed unfused sums. A few cells then
// print another last digit. There a cell must print the same text but for its numbers, and each
// number must lie within one unit of the finer last printed place of the two, or within two
// float ulps of the stored value (the 17-digit reprs of float32 values).

// The numbers of a printout and the text between them.
struct split_text {
  std::vector<std::string> words;
  std::vector<std::string> numbers;
};
inline bool starts_number(std::string_view s, std::size_t i) {
  const auto digit = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  if (digit(i)) return i == 0 || !(std::isalpha(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
  return s[i] == '-' && digit(i + 1);
}
inline split_text split_numbers(std::string_view s) {
  split_text out;
  std::string word;
  for (std::size_t i = 0; i < s.size();) {
    if (!starts_number(s, i)) {
      word += s[i++];
      continue;
    }
    std::size_t j = i + 1;
    while (j < s.size() &&
           ((s[j] >= '0' && s[j] <= '9') || s[j] == '.' || ((s[j] == 'e' || s[j] == 'E') && j + 1 < s.size()) ||
            ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
      ++j;
    out.words.push_back(word);
    word.clear();
    out.numbers.emplace_back(s.substr(i, j - i));
    i = j;
  }
  out.words.push_back(word);
  return out;
}
// One unit of a printed number's last place: 1e-4 for "0.1385", 1e-8 for "1.2e-07".
inline double last_place(std::string_view n) {
  const auto e = n.find_first_of("eE");
  const std::string_view mantissa = n.substr(0, e);
  const auto dot = mantissa.find('.');
  const int decimals = dot == std::string_view::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
  const int exponent = e == std::string_view::npos ? 0 : std::stoi(std::string(n.substr(e + 1)));
  return std::pow(10.0, exponent - decimals);
}
inline bool numbers_close(std::string_view got, std::string_view want) {
  const double g = std::stod(std::string(got)), w = std::stod(std::string(want));
  const double unit = std::min(last_place(got), last_place(want));
  const float wf = static_cast<float>(w);
  const double ulp = static_cast<double>(std::nextafter(std::abs(wf), INFINITY) - std::abs(wf));
  return std::abs(g - w) <= unit * (1 + 1e-9) || std::abs(g - w) <= 2 * ulp;
}
/// The same text but for its numbers, each within a last printed digit (fused builds).
inline bool same_but_last_digits(std::string_view got, std::string_view want) {
  const split_text g = split_numbers(got), w = split_numbers(want);
  if (g.words != w.words || g.numbers.size() != w.numbers.size()) return false;
  for (std::size_t k = 0; k < g.numbers.size(); ++k)
    if (!numbers_close(g.numbers[k], w.numbers[k])) return false;
  return true;
}

/// Every cell's printout against its stored text; reports how many match. In a build whose
/// kernels fuse, a cell may instead print other last digits (same_but_last_digits); the count
/// of those is reported.
template <std::size_t N>
void compare_cells(const cell (&cells)[N]) {
  std::size_t matched = 0, as_torch113 = 0, last_digits = 0;
  for (const cell& c : cells) {
    const std::string got = c.printout();
    const std::string want = expected(c.id);
    INFO("cell " << c.id);
    if (got == want) {
      ++matched;
      if (has_torch113_text(c.id)) ++as_torch113;
    } else if (sa::detail::kernels_fuse<float> && same_but_last_digits(got, want)) {
      ++last_digits;
      MESSAGE("fused kernels: cell " << c.id << " prints other last digits:\n" << got << "for\n" << want);
    } else {
      CHECK(got == want);
    }
  }
  MESSAGE(matched << " of " << N << " cells reproduced, " << as_torch113
                  << " of them as torch 1.13 prints them (docs/book-outputs.md)");
  if (sa::detail::kernels_fuse<float>) {
    MESSAGE(last_digits << " more within a last printed digit (fused kernels: docs/book-outputs.md)");
    // Fusion moves a last digit now and then (4 of the 64 cells on x86 with FMA), never much
    // of the book: at most one cell in eight, or one.
    CHECK(last_digits <= (N / 8 > 1 ? N / 8 : 1));
  }
}

}  // namespace book

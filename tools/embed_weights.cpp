// SPDX-License-Identifier: BSL-1.0
// embed_weights: turns .npy files into a C++ header of constexpr matrices and tensors, so that a
// model carries its weights in its binary, with no file system, no parser and no heap at run time.
//
//   embed_weights --namespace my_model::weights --output weights.hpp w_query.npy w_key.npy ...
//
// writes, for each file, a variable named after the file's stem whose type states the shape:
//   inline constexpr ::static_attention::matrix<float, 3, 2> w_query{{0x1.8p+0f, ...}, ...};
// 1-D (C,) -> matrix<T, 1, C> (as npy.hpp loads it), 2-D (R, C) -> matrix<T, R, C>,
// 3-D (B, N, D) -> tensor<T, B, N, D>; '<f4' -> float, '<f8' -> double. Values are hex-float
// literals, bit-exact; infinities and NaNs (with their payloads) are spelled with std::bit_cast.
// Every name the header uses is fully qualified (::static_attention::, ::std::), so any namespace
// works, even one with a component named static_attention or std.
//
// Weights of more than 256 rows (or batch items), or more than 16384 elements, are written as one
// flat ::std::array that ::std::bit_cast turns into the matrix: no braced rows (Clang limits a
// pack to 256 of them) and no loop, so neither GCC's -fconstexpr-loop-limit (262144 iterations)
// nor Clang's -fconstexpr-steps (1048576) applies. What limits the size then is the compiler's
// memory and time: a 1000 x 1000 float weight (a 16 MB header) compiles in about 1.5 s and
// 0.5 GB with GCC 12 and Clang 16; no constexpr limit needs raising.
// Usually run by the CMake function static_attention_embed_weights (cmake/StaticAttentionEmbed.cmake).
//
// Compiled with SA_EMBED_WEIGHTS_NO_MAIN, this file is a library of the tool's steps, for the
// fuzz target tests/fuzz/embed_fuzz.cpp.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <static_attention/io/npy.hpp>

namespace sa = static_attention;

namespace embed_weights {

constexpr std::string_view usage =
    "usage: embed_weights --namespace <ns>[::<ns>...] --output <header.hpp> <file.npy>...\n"
    "Writes a header of inline constexpr static_attention::matrix/tensor variables, one per file,\n"
    "named after the file's stem.\n";

// Reserved words a file stem must not be (C++20 keywords and alternative tokens).
bool is_keyword(std::string_view s) {
  static const std::set<std::string_view> keywords = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  return keywords.count(s) != 0;
}

// An identifier a user may declare: not a keyword, and not reserved to the implementation
// (leading underscore and capital, or a double underscore anywhere).
bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  if (s.find("__") != std::string_view::npos || (s.size() > 1 && s[0] == '_' && s[1] >= 'A' && s[1] <= 'Z'))
    return false;
  return !is_keyword(s);
}

// A namespace the header may open: identifiers joined by "::". Its first component is declared
// at global scope, where a leading underscore is reserved too, and where std, std followed by
// digits and posix are reserved to the standard library.
bool is_namespace(std::string_view ns) {
  for (std::size_t start = 0;;) {
    const std::size_t end = ns.find("::", start);
    const std::string_view part = ns.substr(start, end == std::string_view::npos ? end : end - start);
    if (!is_identifier(part)) return false;
    if (start == 0) {
      const bool std_digits =
          part.starts_with("std") && part.find_first_not_of("0123456789", 3) == std::string_view::npos;
      if (part[0] == '_' || std_digits || part == "posix") return false;
    }
    if (end == std::string_view::npos) return true;
    start = end + 2;
  }
}

// A literal that reads back as exactly `x`, in a constant expression.
std::string literal(float x) {
  if (x - x != 0.0f) {  // infinity or NaN: no literal, so spell the bits
    char buf[64];
    std::snprintf(buf, sizeof buf, "::std::bit_cast<float>(::std::uint32_t{0x%08xu})",
                  static_cast<unsigned>(std::bit_cast<std::uint32_t>(x)));
    return buf;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(x));  // exact: float -> double is exact
  return buf;
}

std::string literal(double x) {
  if (x - x != 0.0) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "::std::bit_cast<double>(::std::uint64_t{0x%016llxu})",
                  static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(x)));
    return buf;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

// Values in braces by row: rows of 8 values per line at most.
template <class T>
void write_row(std::ostream& out, const std::vector<T>& values, std::size_t from, std::size_t count,
               std::string_view indent) {
  out << '{';
  for (std::size_t j = 0; j < count; ++j) {
    if (j > 0) out << (j % 8 == 0 ? std::string{",\n"} + std::string{indent} + ' ' : std::string{", "});
    out << literal(values[from + j]);
  }
  out << '}';
}

template <class T>
void write_values(std::ostream& out, const std::vector<T>& values, const std::vector<std::size_t>& shape) {
  if (shape.size() == 3) {
    const std::size_t n = shape[1], d = shape[2];
    for (std::size_t b = 0; b < shape[0]; ++b) {
      out << (b == 0 ? "\n    {" : ",\n    {");
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) out << ",\n     ";
        write_row(out, values, (b * n + i) * d, d, "     ");
      }
      out << '}';
    }
  } else {
    const std::size_t r = shape.size() == 1 ? 1 : shape[0], c = shape.back();
    for (std::size_t i = 0; i < r; ++i) {
      out << (i == 0 ? "\n    " : ",\n    ");
      write_row(out, values, i * c, c, "    ");
    }
  }
}

struct weight {
  std::string name;
  std::string file;
  sa::npy_array array;
};

std::string type_of(const weight& w) {
  const auto& s = w.array.header.shape;
  const std::string t = w.array.dtype == sa::npy_dtype::f4 ? "float" : "double";
  if (s.size() == 3)
    return "::static_attention::tensor<" + t + ", " + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " +
           std::to_string(s[2]) + ">";
  return "::static_attention::matrix<" + t + ", " + std::to_string(s.size() == 1 ? 1 : s[0]) + ", " +
         std::to_string(s.back()) + ">";
}

// The row (or item) constructors of matrix and tensor take one braced list per row (item) as a
// pack, and copy them in a loop that the constant evaluator counts: braced rows only for weights
// of at most this many rows and elements.
constexpr std::size_t max_braced_rows = 256;
constexpr std::size_t max_braced_elements = 16384;

std::size_t count_of(const weight& w) {
  return w.array.dtype == sa::npy_dtype::f4 ? w.array.f4.size() : w.array.f8.size();
}

bool braced(const weight& w) {
  const auto& s = w.array.header.shape;
  return (s.size() == 1 || s[0] <= max_braced_rows) && count_of(w) <= max_braced_elements;
}

// Larger weights: a flat array of the elements, bit_cast into the matrix or tensor (whose storage
// is exactly that array, with no padding: bit_cast would not compile otherwise).
void write_flat(std::ostream& out, const weight& w) {
  const std::string element = w.array.dtype == sa::npy_dtype::f4 ? "float" : "double";
  const std::size_t count = count_of(w);
  out << "// " << count << " elements: one flat array, bit_cast into the "
      << (w.array.header.shape.size() == 3 ? "tensor" : "matrix") << " (no braced rows, no constexpr loop).\n"
      << "inline constexpr " << type_of(w) << ' ' << w.name << " = ::std::bit_cast<" << type_of(w) << ">(::std::array<"
      << element << ", " << count << ">{{";
  for (std::size_t k = 0; k < count; ++k) {
    out << (k == 0 ? "\n    " : k % 8 == 0 ? ",\n    " : ", ");
    out << (w.array.dtype == sa::npy_dtype::f4 ? literal(w.array.f4[k]) : literal(w.array.f8[k]));
  }
  out << "}});\n";
}

int fail(const std::string& message) {
  std::cerr << "embed_weights: " << message << '\n';
  return 1;
}

// The checks of --namespace: empty when `ns` can be opened by the header, else why not.
std::string namespace_problem(std::string_view ns) {
  if (is_namespace(ns)) return {};
  return "--namespace '" + std::string{ns} +
         "' is not a namespace name such as my_model::weights: identifiers joined by ::, none of them a keyword "
         "or reserved, and the first not std, std<digits> or posix and not starting with an underscore";
}

// Reads one file as the tool does: the variable's name from the file's stem, the array from the
// file (any shape; embed_weights then needs 1 to 3 dimensions, all > 0). Empty when it can be
// embedded, else why not.
std::string load_weight(const std::string& file, weight& out) {
  const std::string name = std::filesystem::path(file).stem().string();
  if (!is_identifier(name))
    return file + ": the file's stem '" + name +
           "' names the variable, so it must be a C++ identifier that is neither a keyword nor reserved; rename "
           "the file";
  auto array = sa::load_npy_array(file);
  if (!array) return std::string{array.error().message};
  const auto& shape = array.value().header.shape;
  bool positive = true;
  for (const std::size_t d : shape) positive = positive && d > 0;
  if (shape.empty() || shape.size() > 3 || !positive)
    return file + ": found shape " + sa::detail::npy_shape_string(shape) +
           "; embed_weights writes 1-D (C,) as matrix<T, 1, C>, 2-D as matrix<T, R, C> and 3-D as "
           "tensor<T, B, N, D>, all dimensions > 0";
  out = weight{name, file, std::move(array).value()};
  return {};
}

// The header for weights loaded by load_weight, in namespace `ns` (checked by namespace_problem).
std::string header_text(std::string_view ns, const std::vector<weight>& weights) {
  std::ostringstream out;
  bool non_finite = false, flat = false;
  for (const auto& w : weights) {
    for (const float x : w.array.f4) non_finite = non_finite || x - x != 0.0f;
    for (const double x : w.array.f8) non_finite = non_finite || x - x != 0.0;
    flat = flat || !braced(w);
  }
  out << "// Generated by static_attention's embed_weights from .npy files; do not edit.\n"
         "// Each variable's type states the shape numpy wrote; values are hex-float literals, bit-exact.\n"
         "#pragma once\n\n";
  if (flat) out << "#include <array>\n";
  if (non_finite || flat) out << "#include <bit>\n";
  out << "#include <cstddef>\n";
  if (non_finite) out << "#include <cstdint>\n";
  out << '\n';
  out << "#include <static_attention/core/matrix.hpp>\n#include <static_attention/core/tensor.hpp>\n\n"
      << "namespace " << ns << " {\n";
  for (const auto& w : weights) {
    const auto& h = w.array.header;
    out << "\n/// " << std::filesystem::path(w.file).filename().string() << ": "
        << (w.array.dtype == sa::npy_dtype::f4 ? "float32" : "float64") << ", shape "
        << sa::detail::npy_shape_string(h.shape) << ".\n";
    if (!braced(w)) {
      write_flat(out, w);
      continue;
    }
    out << "inline constexpr " << type_of(w) << ' ' << w.name << '{';
    if (w.array.dtype == sa::npy_dtype::f4)
      write_values(out, w.array.f4, h.shape);
    else
      write_values(out, w.array.f8, h.shape);
    out << "};\n";
  }
  out << "\n}  // namespace " << ns << '\n';
  return out.str();
}

int run(int argc, char** argv) {
  std::string ns, output;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if ((arg == "--namespace" || arg == "--output") && i + 1 < argc) {
      (arg == "--namespace" ? ns : output) = argv[++i];
    } else if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    } else if (arg.starts_with("-")) {
      std::cerr << "embed_weights: unknown option '" << arg << "'\n" << usage;
      return 2;
    } else {
      files.emplace_back(arg);
    }
  }
  if (ns.empty() || output.empty() || files.empty()) {
    std::cerr << usage;
    return 2;
  }
  if (const std::string problem = namespace_problem(ns); !problem.empty()) return fail(problem);

  std::vector<weight> weights;
  std::set<std::string> names;
  for (const auto& file : files) {
    weight w;
    if (const std::string problem = load_weight(file, w); !problem.empty()) return fail(problem);
    if (!names.insert(w.name).second) return fail(file + ": a second file with the stem '" + w.name + "'");
    weights.push_back(std::move(w));
  }
  const std::string text = header_text(ns, weights);

  // Write a temporary and rename, so that an interrupted run never leaves half a header.
  const std::filesystem::path target{output};
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::filesystem::path temp = target.string() + ".tmp";
  {
    std::ofstream file(temp, std::ios::binary);
    file << text;
    if (!file.flush()) return fail(output + ": could not write " + temp.string());
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) return fail(output + ": could not rename " + temp.string() + ": " + ec.message());
  return 0;
}

}  // namespace embed_weights

#ifndef SA_EMBED_WEIGHTS_NO_MAIN
int main(int argc, char** argv) { return embed_weights::run(argc, argv); }
#endif

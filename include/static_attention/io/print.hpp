// SPDX-License-Identifier: BSL-1.0
// Printing matrices and tensors exactly as PyTorch prints them: `std::cout << m`, `to_string(m)`.
//
// The output is character for character what `print(torch.tensor(...))` shows for the same values
// and the same torch.set_printoptions: aligned columns, 4 decimals by default, PyTorch's choice
// between fixed and scientific notation, `nan`/`inf`/`-inf`, wrapping at 80 columns, a summary
// with `...` above 1000 elements, and a blank line between the items of a batch (torch separates
// the slices of a 3-d tensor that way). tests/print checks it against strings printed by torch.
//
// Element types are named as PyTorch names them. PyTorch's default dtype is float32, so a
// `matrix<float, ...>` prints without a dtype and a `matrix<double, ...>` ends in
// `dtype=torch.float64`, as a float64 tensor does; int64 and bool need no dtype either, other
// integers print theirs (`dtype=torch.int32`). long double, which torch lacks, prints its digits
// at its own precision and says `dtype=long double`.
//
// This is the only public header that includes <ostream> and <string>; the rest of the library
// stays free of iostreams.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/rank.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/io/detail/chars.hpp>
#include <static_attention/io/detail/error_stream.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace static_attention {

/// What torch.set_printoptions sets, passed per call: `to_string(m, {.precision = 2})`.
struct print_options {
  /// Digits after the decimal point (fixed) or after the leading digit (scientific); below 0 is 0.
  int precision = 4;
  /// Characters per line before a row wraps (the row's indentation counts).
  int linewidth = 80;
  /// Scientific notation on (true) or off (false); empty lets PyTorch's rule choose.
  std::optional<bool> sci_mode{};
  /// Above this many elements, only `edgeitems` at each end of every dimension are shown.
  std::size_t threshold = 1000;
  /// Items shown at each end of a summarised dimension.
  std::size_t edgeitems = 3;
  /// The autograd node torch names after `grad_fn=` (`"MmBackward0"`) when a printout is to
  /// match a tensor that requires grad; empty (the default) prints no grad_fn. The library has
  /// no autograd: this only reproduces the text.
  std::string_view grad_fn{};
};

namespace detail {

// PyTorch's name of an element type's dtype, or empty for the dtypes torch prints without one
// (its default float32, int64 and bool).
template <class T>
constexpr std::string_view dtype_suffix() noexcept {
  // Integers by size, 1, 2, 4 and 8 bytes (empty: int64, torch's default, printed without one).
  constexpr std::string_view signed_ints[] = {"dtype=torch.int8", "dtype=torch.int16", "dtype=torch.int32", {}};
  constexpr std::string_view unsigned_ints[] = {"dtype=torch.uint8", "dtype=torch.uint16", "dtype=torch.uint32",
                                                "dtype=torch.uint64"};
  constexpr std::size_t by_size = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
  if constexpr (std::is_same_v<T, bool>)
    return {};
  else if constexpr (std::is_floating_point_v<T>)
    return sizeof(T) == 4 ? std::string_view{} : sizeof(T) == 8 ? "dtype=torch.float64" : "dtype=long double";
  else if constexpr (std::is_signed_v<T>)
    return signed_ints[by_size];
  else
    return unsigned_ints[by_size];
}

// Python's "{:.Nf}" / "{:.Ne}" of a value: correctly rounded, and nan without a sign, as torch
// prints every nan.
template <class W>
std::string float_text(W v, std::chars_format format, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return chars_of(v, format, precision);
}

// Which of the indices 0..n-1 of one dimension are shown: all of them, or the first and last
// `edge` when the tensor is summarised and the dimension is long (torch's get_summarized_data).
// The k-th shown index is index(k), for k below count().
struct shown_range {
  std::size_t n, edge;
  bool cut;  // true: print "..." between the two ends
  constexpr shown_range(std::size_t size, bool summarize, std::size_t edgeitems) noexcept
      : n(size), edge(edgeitems), cut(summarize && size > 2 * edgeitems) {}
  constexpr std::size_t count() const noexcept { return cut ? 2 * edge : n; }
  constexpr std::size_t index(std::size_t k) const noexcept { return cut && k >= edge ? n - 2 * edge + k : k; }
};

// _vector_str's lines: elements joined by ", ", and a new line, indented, after `per_line` of them.
struct vector_lines {
  std::string& s;
  std::size_t per_line, indent;
  std::size_t on_line = 0;

  void put(std::string_view text) {
    if (on_line != 0) {
      if (on_line == per_line) {
        s += ",\n";
        s.append(indent + 1, ' ');
        on_line = 0;
      } else {
        s += ", ";
      }
    }
    s += text;
    ++on_line;
  }
};

// torch._tensor_str._Formatter: one column width and one notation for every element shown.
//
// No lambdas, and factories instead of constructors with parameters, in the templates of this
// header: GCC's -Wshadow would flag their names against a user's globals of the same names.
template <class T>
class element_formatter {
  // Floats are measured and printed as double, as Python sees a float32 element; long double
  // keeps its own precision.
  using wide = std::conditional_t<(sizeof(T) > sizeof(double)), long double, double>;

 public:
  /// Measures the elements `shown.for_each_shown(pass)` passes to `pass`.
  template <class Shown>
  static element_formatter measure(const Shown& shown, const print_options& opts) {
    element_formatter formatter;
    formatter.precision_ = std::max(opts.precision, 0);
    if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) {
      integer_width_pass width_pass{formatter};
      shown.for_each_shown(width_pass);
    } else {
      float_range_pass range_pass{formatter};
      shown.for_each_shown(range_pass);
      // No finite non-zero value: torch keeps its defaults and ignores sci_mode ("0.", "nan").
      if (!range_pass.any) return formatter;
      const wide lo = range_pass.lo, hi = range_pass.hi;
      const bool wide_range = hi / lo > wide{1000} || hi > wide{1e8};
      formatter.sci_mode_ = formatter.int_mode_ ? wide_range : (wide_range || lo < wide{1e-4});
      // The width comes from the notation torch chose itself, even when sci_mode overrides it.
      float_width_pass width_pass{formatter};
      shown.for_each_shown(width_pass);
      if (opts.sci_mode) formatter.sci_mode_ = *opts.sci_mode;
    }
    return formatter;
  }

  /// Width of every formatted element (a longer one is not cut, as in torch).
  std::size_t width() const noexcept { return width_; }

  /// One element, right-aligned to width().
  std::string format(T v) const {
    std::string s = format_raw(v);
    if (s.size() < width_) s.insert(0, width_ - s.size(), ' ');
    return s;
  }

 private:
  // The passes of measure() over the shown elements.
  struct integer_width_pass {
    element_formatter& self;
    void operator()(T v) const { self.width_ = std::max(self.width_, self.format_raw(v).size()); }
  };
  // The smallest and largest magnitude of the finite non-zero values; clears int_mode_ at a fraction.
  struct float_range_pass {
    element_formatter& self;
    bool any = false;
    wide lo = 0, hi = 0;
    void operator()(T v) {
      const wide x = static_cast<wide>(v);
      if (!std::isfinite(x) || x == 0) return;
      if (x != std::ceil(x)) self.int_mode_ = false;
      const wide a = std::fabs(x);
      lo = any ? std::min(lo, a) : a;
      hi = any ? std::max(hi, a) : a;
      any = true;
    }
  };
  struct float_width_pass {
    element_formatter& self;
    void operator()(T v) const {
      const wide x = static_cast<wide>(v);
      if (!std::isfinite(x) || x == 0) return;
      std::size_t w = 0;
      if (self.sci_mode_)
        w = float_text(x, std::chars_format::scientific, self.precision_).size();
      else if (self.int_mode_)
        w = float_text(x, std::chars_format::fixed, 0).size() + 1;  // + "."
      else
        w = float_text(x, std::chars_format::fixed, self.precision_).size();
      self.width_ = std::max(self.width_, w);
    }
  };

  std::string format_raw(T v) const {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "True" : "False";
    } else if constexpr (std::is_integral_v<T>) {
      // Through a 64-bit integer, so char types print as numbers, as int8/uint8 tensors do.
      using as_int = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
      return chars_of(static_cast<as_int>(v));
    } else {
      const wide x = static_cast<wide>(v);
      if (sci_mode_) return float_text(x, std::chars_format::scientific, precision_);
      if (int_mode_) {
        std::string s = float_text(x, std::chars_format::fixed, 0);
        if (std::isfinite(x)) s += '.';  // marks a float tensor of whole numbers: "1."
        return s;
      }
      return float_text(x, std::chars_format::fixed, precision_);
    }
  }

  int precision_ = 4;
  std::size_t width_ = 1;
  bool int_mode_ = true;
  bool sci_mode_ = false;
};

// The text of a row-major array of rank 0 to 4, following torch._tensor_str line for line.
template <class T, std::size_t Rank>
class torch_printer {
 public:
  static std::string str(const T* data, std::array<std::size_t, Rank> dims, const print_options& opts) {
    torch_printer printer;
    printer.data_ = data;
    printer.dims_ = dims;
    printer.opts_ = opts;
    printer.summarize_ = element_count(dims) > opts.threshold;
    printer.fmt_ = element_formatter<T>::measure(printer, opts);
    return printer.text();
  }

  // Calls pass(value) for every element the printout shows: the formatter measures only those.
  template <class Pass>
  void for_each_shown(Pass& pass) const {
    if constexpr (Rank == 0)
      pass(data_[0]);
    else
      for_each_shown(0, 0, pass);
  }

 private:
  std::string text() const {
    constexpr std::string_view prefix = "tensor(";
    std::string s(prefix);
    if constexpr (Rank == 0)
      s += fmt_.format(data_[0]);  // _scalar_str: the one value, as the formatter measured it
    else
      append_slice(s, 0, 0, prefix.size());
    append_suffix(s, dtype_suffix<T>(), prefix.size());
    return s;
  }

  static constexpr std::size_t element_count(const std::array<std::size_t, Rank>& dims) noexcept {
    std::size_t n = 1;
    for (const std::size_t d : dims) n *= d;
    return n;
  }
  std::size_t stride(std::size_t dim) const noexcept {
    std::size_t s = 1;
    for (std::size_t d = dim + 1; d < Rank; ++d) s *= dims_[d];
    return s;
  }
  shown_range shown(std::size_t dim) const noexcept { return {dims_[dim], summarize_, opts_.edgeitems}; }

  template <class Pass>
  void for_each_shown(std::size_t dim, std::size_t offset, Pass& pass) const {
    const shown_range range = shown(dim);
    for (std::size_t k = 0; k < range.count(); ++k) {
      const std::size_t i = range.index(k);
      if (dim + 1 == Rank)
        pass(data_[offset + i]);
      else
        for_each_shown(dim + 1, offset + i * stride(dim), pass);
    }
  }

  // torch's _tensor_str_with_formatter for the sub-array of dimension `dim` at `offset`.
  void append_slice(std::string& s, std::size_t dim, std::size_t offset, std::size_t indent) const {
    const shown_range range = shown(dim);
    s += '[';
    if (dim + 1 == Rank) {
      // _vector_str: as many elements per line as fit after the indentation, at least one.
      const auto element_length = static_cast<long long>(fmt_.width() + 2);
      const long long room = static_cast<long long>(opts_.linewidth) - static_cast<long long>(indent);
      vector_lines lines{s, static_cast<std::size_t>(std::max(1LL, room / element_length)), indent};
      for (std::size_t k = 0; k < range.count(); ++k) {
        if (range.cut && k == range.edge) lines.put(" ...");
        lines.put(fmt_.format(data_[offset + range.index(k)]));
      }
    } else {
      // Slices of a d-dimensional array are separated by d - 1 newlines: rows by one, the
      // matrices of a batch by two.
      std::string separator(",");
      separator.append(Rank - dim - 1, '\n');
      separator.append(indent + 1, ' ');
      for (std::size_t k = 0; k < range.count(); ++k) {
        if (k != 0) s += separator;
        if (range.cut && k == range.edge) s += "..." + separator;
        append_slice(s, dim + 1, offset + range.index(k) * stride(dim), indent + 1);
      }
    }
    s += ']';
  }

  // torch's _add_suffixes: each suffix (dtype, then grad_fn) after ", " on the last line if it
  // fits, else on a line of its own.
  void append_suffix(std::string& s, std::string_view dtype, std::size_t indent) const {
    // As torch computes it: one more than the last line's length (two more without a newline).
    const std::size_t newline = s.rfind('\n');
    std::size_t last_line = newline == std::string::npos ? s.size() + 2 : s.size() - newline + 1;
    std::string grad_fn;
    if (!opts_.grad_fn.empty()) {
      grad_fn = "grad_fn=<";
      grad_fn += opts_.grad_fn;
      grad_fn += '>';
    }
    for (const std::string_view suffix : {dtype, std::string_view(grad_fn)}) {
      if (suffix.empty()) continue;
      if (static_cast<long long>(last_line + suffix.size() + 2) > static_cast<long long>(opts_.linewidth)) {
        s += ",\n";
        s.append(indent, ' ');
        last_line = indent + suffix.size();
      } else {
        s += ", ";
        last_line += suffix.size() + 2;
      }
      s += suffix;
    }
    s += ')';
  }

  const T* data_ = nullptr;
  std::array<std::size_t, Rank> dims_{};
  print_options opts_{};
  bool summarize_ = false;
  element_formatter<T> fmt_{};
};

template <class T, std::size_t R, std::size_t C>
std::string torch_string(const matrix<T, R, C>& m, const print_options& opts) {
  return torch_printer<T, 2>::str(m.data(), {R, C}, opts);
}
template <class T, std::size_t B, std::size_t N, std::size_t D>
std::string torch_string(const tensor<T, B, N, D>& t, const print_options& opts) {
  return torch_printer<T, 3>::str(t.data(), {B, N, D}, opts);
}

template <class T>
std::string torch_string(const scalar<T>& x, const print_options& opts) {
  return torch_printer<T, 0>::str(x.data(), {}, opts);
}
template <class T, std::size_t N>
std::string torch_string(const vector<T, N>& v, const print_options& opts) {
  return torch_printer<T, 1>::str(v.data(), {N}, opts);
}
template <class T, std::size_t A, std::size_t B, std::size_t C, std::size_t D>
std::string torch_string(const tensor4<T, A, B, C, D>& t, const print_options& opts) {
  return torch_printer<T, 4>::str(t.data(), {A, B, C, D}, opts);
}

// What print.hpp prints: matrices and tensors, and the scalars, vectors and tensor4s of rank.hpp.
template <class M>
concept printable = dense<M> || has_rank_sizes<M>;

}  // namespace detail

/// The text `print(torch.tensor(m))` shows, under torch.set_printoptions(opts): for a
/// scalar `tensor(1.)`, a vector `tensor([0.4419, 0.6515, 0.5683])`, and so on up to tensor4.
template <detail::printable M>
std::string to_string(const M& m, const print_options& opts = {}) {
  return detail::torch_string(m, opts);
}

/// A shape as torch prints it, `torch.Size([2, 4, 50257])`: what shape_of(x) returns.
template <std::size_t Rank>
struct torch_size {
  /// The sizes, outermost first.
  std::array<std::size_t, Rank> dims;

  /// `torch.Size([...])`.
  friend std::ostream& operator<<(std::ostream& os, const torch_size& s) {
    os << "torch.Size([";
    for (std::size_t d = 0; d < Rank; ++d) os << (d == 0 ? "" : ", ") << s.dims[d];
    return os << "])";
  }
  /// Equal sizes.
  friend constexpr bool operator==(const torch_size&, const torch_size&) = default;
};

/// The shape of the type M, with no object: `shape_of<decltype(block(x))>()` for a result too
/// large to build, as the book prints `output.shape` of a GPT-2 block.
template <detail::printable M>
constexpr auto shape_of() noexcept {
  constexpr auto sizes = detail::rank_sizes<std::remove_cvref_t<M>>::sizes;
  return torch_size<sizes.size()>{sizes};
}

/// The shape of x, torch's `x.shape`, printing as `torch.Size([2, 6, 3])`.
template <detail::printable M>
constexpr auto shape_of(const M&) noexcept {
  return shape_of<M>();
}

/// Prints `m` as PyTorch does with its default print options. The stream's own precision and
/// width are ignored: the text is torch's, whatever the stream was set to.
template <detail::printable M>
std::ostream& operator<<(std::ostream& os, const M& m) {
  return os << to_string(m);
}

/// A matrix or tensor paired with print options, made by with_options() for `<<`.
template <detail::printable M>
struct with_options_t {
  const M& value;
  print_options options;

  /// Prints the value under the options.
  friend std::ostream& operator<<(std::ostream& os, const with_options_t& p) {
    return os << to_string(p.value, p.options);
  }
};

/// Print options for one insertion, as torch.set_printoptions for one print:
/// `std::cout << with_options(m, {.precision = 2});`
template <detail::printable M>
with_options_t<M> with_options(const M& m, const print_options& opts) noexcept {
  return {m, opts};
}

}  // namespace static_attention

// With STATIC_ATTENTION_USE_FMT defined and {fmt} installed, `fmt::format("{}", m)` works too.
#if defined(STATIC_ATTENTION_USE_FMT) && __has_include(<fmt/format.h>)
#include <static_attention/io/fmt.hpp>
#endif

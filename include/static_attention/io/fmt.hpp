// SPDX-License-Identifier: BSL-1.0
// {fmt} support: `fmt::format("{}", m)` prints a matrix or tensor as PyTorch does (see print.hpp).
//
// Include this header, or define STATIC_ATTENTION_USE_FMT before including print.hpp, and link
// {fmt} (fmt::fmt in CMake). The format spec may give a precision, `{:.2}`, as
// torch.set_printoptions(precision=2) would; everything else is print_options' defaults.
#pragma once

#if !__has_include(<fmt/format.h>)
#error "static_attention/io/fmt.hpp requires {fmt} (<fmt/format.h>); install it or use print.hpp alone"
#endif

#include <fmt/format.h>
#include <fmt/ranges.h>  // declares fmt::is_range, specialised below

#include <algorithm>
#include <static_attention/io/print.hpp>
#include <string>
#include <type_traits>

// A matrix has begin() and end(), so fmt/ranges.h would also claim it as a flat range and the
// two formatters would be ambiguous; it is printed as a tensor instead.
template <static_attention::dense M, class Char>
struct fmt::is_range<M, Char> : std::false_type {};

/// Formats a matrix or tensor as `to_string` does; `{:.N}` sets the precision.
template <static_attention::dense M>
struct fmt::formatter<M, char> {
  static_attention::print_options options{};

  constexpr auto parse(fmt::format_parse_context& ctx) -> decltype(ctx.begin()) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it == '.') {
      ++it;
      if (it == ctx.end() || *it < '0' || *it > '9') FMT_THROW(fmt::format_error("{:.N} for a matrix needs digits N"));
      int precision = 0;
      while (it != ctx.end() && *it >= '0' && *it <= '9') precision = precision * 10 + (*it++ - '0');
      options.precision = precision;
    }
    if (it != ctx.end() && *it != '}') FMT_THROW(fmt::format_error("a matrix takes only {} or {:.N}"));
    return it;
  }

  template <class FormatContext>
  auto format(const M& m, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::string text = static_attention::to_string(m, options);
    return std::copy(text.begin(), text.end(), ctx.out());
  }
};

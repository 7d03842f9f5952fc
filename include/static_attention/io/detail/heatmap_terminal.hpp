// SPDX-License-Identifier: BSL-1.0
// The terminal rendering of a heatmap: shades or 24-bit colour, row labels, a legend line.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include <static_attention/core/matrix.hpp>
#include <static_attention/io/detail/heatmap_color.hpp>
#include <static_attention/io/detail/heatmap_text.hpp>

namespace static_attention::detail::heatmap {

// The terminal rendering, or false (failbit set, nothing written) for invalid options or label
// counts. color: 24-bit colour escapes, else Unicode shades.
template <class T, std::size_t R, std::size_t C, class Options>
bool terminal(std::ostream& os, const matrix<T, R, C>& weights, std::span<const std::string_view> row_labels,
              std::span<const std::string_view> col_labels, const Options& opts, bool color) {
  namespace h = detail::heatmap;
  const std::optional<h::scale> valid_scale = h::scale_of(weights, opts.scale_min, opts.scale_max);
  if (!valid_scale || row_labels.size() != R || col_labels.size() != C) {
    os.setstate(std::ios_base::failbit);
    return false;
  }
  const h::scale sc = *valid_scale;

  std::size_t row_w = h::widest(row_labels), col_w = h::widest(col_labels);
  for (const T& v : weights)
    col_w = std::max(col_w, h::text_columns(h::value_text(static_cast<double>(v), opts.value_precision)));
  row_w = std::min(row_w, std::size_t{16});
  col_w = std::clamp(col_w, std::size_t{3}, std::size_t{8});

  std::string s = std::string(row_w + 1, ' ');
  for (std::size_t j = 0; j < C; ++j) s += h::centered(col_labels[j], col_w) + ' ';
  s.erase(s.find_last_not_of(' ') + 1);  // no trailing blanks, which diffs and editors flag
  s += '\n';
  for (std::size_t i = 0; i < R; ++i) {
    s += h::fit(row_labels[i], row_w, true) + ' ';
    for (std::size_t j = 0; j < C; ++j) {
      const auto v = static_cast<double>(weights(i, j));
      const std::string text = h::value_text(v, opts.value_precision);
      if (!std::isfinite(v)) {
        s += h::centered(text, col_w);
      } else if (color) {
        const h::rgb bg = h::viridis(sc.position(v));
        s += h::ansi("48", bg) + h::ansi("38", h::is_light(bg) ? h::rgb{0x11, 0x11, 0x11} : h::rgb{0xff, 0xff, 0xff}) +
             h::centered(text, col_w) + "\x1b[0m";
      } else {
        for (std::size_t k = 0; k < col_w; ++k) s += h::shade(sc.position(v));
      }
      if (j + 1 < C) s += ' ';
    }
    s += '\n';
  }
  // The legend: what the darkest and brightest cells stand for.
  s += std::string(row_w + 1, ' ') + h::value_text(sc.lo, opts.value_precision) + ' ';
  if (color) {
    for (std::size_t k = 0; k < 16; ++k) s += h::ansi("48", h::viridis(static_cast<double>(k) / 15.0)) + "  ";
    s += "\x1b[0m";
  } else {
    for (const std::string_view sh : h::shades) s += std::string(sh) + std::string(sh);
  }
  s += ' ' + h::value_text(sc.hi, opts.value_precision) + '\n';
  os << s;
  return true;
}

}  // namespace static_attention::detail::heatmap

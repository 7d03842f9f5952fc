// SPDX-License-Identifier: BSL-1.0
// Heatmaps of attention weights: a self-contained SVG (write_svg_heatmap) and a terminal
// rendering in Unicode shades or 24-bit colour (render_terminal).
//
// Rows are queries and columns are keys, as in `softmax(q kᵀ)`: row i shows how much token i
// attends to each token. Colours follow viridis, which stays readable in grey and for colour-blind
// readers. By default the colour scale runs from the smallest to the largest finite value, so
// that the small differences typical of one softmax row still show; pass scale_min = 0 and
// scale_max = 1 for an absolute scale. -inf (a masked score), inf and nan get a grey cell and
// their name; any finite values, up to +-DBL_MAX, map onto the scale without overflow.
//
// Labels: a braced list ({"Your", "journey"}), or any sized range of strings (std::array,
// std::span, std::vector<std::string>, ...), one per row and one per column; a wrong count is a
// compile error when the count is in the type (std::array, a fixed-extent span, a C array), and a
// refusal at run time otherwise (braced lists, vectors). Control characters in
// labels never reach the output (U+FFFD instead).
//
// Refusals: both functions return false, set failbit on the stream and write nothing when the
// options are invalid (a scale bound that is not finite, or scale_min > scale_max) or a run-time
// label list has the wrong length; true otherwise.
//
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <static_attention/core/matrix.hpp>
#include <static_attention/io/detail/heatmap_color.hpp>
#include <static_attention/io/detail/heatmap_svg.hpp>
#include <static_attention/io/detail/heatmap_terminal.hpp>
#include <static_attention/io/detail/heatmap_text.hpp>

namespace static_attention {

/// Options of write_svg_heatmap.
struct svg_heatmap_options {
  /// Heading above the grid.
  std::string_view title = "Attention weights";
  /// Name of the vertical axis (one row per query token).
  std::string_view row_axis = "queries";
  /// Name of the horizontal axis (one column per key token).
  std::string_view col_axis = "keys";
  /// Value of the darkest colour; empty: the smallest finite value. Must be finite.
  std::optional<double> scale_min{};
  /// Value of the brightest colour; empty: the largest finite value. Must be finite, and not
  /// below scale_min.
  std::optional<double> scale_max{};
  /// Print each value in its cell; empty: only when the matrix is at most 12 x 12.
  std::optional<bool> show_values{};
  /// Decimals of the values in the cells and on the legend (0 to 17; values of magnitude 1e6 and
  /// more are written in scientific notation).
  int value_precision = 2;
  /// Side of one cell, in pixels (at least 8).
  int cell_size = 48;
};

/// How render_terminal colours cells.
enum class terminal_colors {
  /// truecolor when the COLORTERM environment variable says "truecolor" or "24bit", else shades.
  automatic,
  /// Unicode shading blocks ░▒▓█, readable on any terminal and in plain text.
  shades,
  /// 24-bit background colours (ESC[48;2;r;g;bm) with the value printed in each cell.
  truecolor,
};

/// Options of render_terminal.
struct terminal_heatmap_options {
  /// Shades, 24-bit colour, or chosen from COLORTERM.
  terminal_colors colors = terminal_colors::automatic;
  /// Value of the lightest shade / darkest colour; empty: the smallest finite value. Must be finite.
  std::optional<double> scale_min{};
  /// Value of the full block / brightest colour; empty: the largest finite value. Must be finite,
  /// and not below scale_min.
  std::optional<double> scale_max{};
  /// Decimals of the values (in truecolor cells and on the legend), 0 to 17.
  int value_precision = 2;
};

/// Labels of a heatmap's rows or columns: a sized range of anything that converts to
/// std::string_view (std::array<std::string_view, N>, std::span, std::vector<std::string>, ...).
template <class L>
concept heatmap_labels = std::ranges::forward_range<const L> && std::ranges::sized_range<const L> &&
    std::convertible_to<std::ranges::range_reference_t<const L>, std::string_view>;

/// A count of labels, as it appears in diagnostics.
template <std::size_t N>
struct label_count {};

/// A heatmap has one label per row and one per column: `label_count_matches<label_count<2>,
/// label_count<3>>` is false (two labels for three rows).
template <class Given, class Expected>
inline constexpr bool label_count_matches = std::is_same_v<Given, Expected>;

namespace detail::heatmap {

// Colour escapes: asked for, or (automatic) announced by COLORTERM.
inline bool uses_color(terminal_colors colors) {
  return colors == terminal_colors::truecolor || (colors == terminal_colors::automatic && colorterm_says_truecolor());
}

// The number of labels a type holds, when the type says it (std::array, a fixed-extent span, a C
// array); std::dynamic_extent when only the run time knows.
template <class L>
inline constexpr std::size_t static_count = std::dynamic_extent;
template <class E, std::size_t N>
inline constexpr std::size_t static_count<std::array<E, N>> = N;
template <class E, std::size_t N>
inline constexpr std::size_t static_count<std::span<E, N>> = N;
template <class E, std::size_t N>
inline constexpr std::size_t static_count<E[N]> = N;

// One label per row (Expected = R) or column (Expected = C), checked at compile time when the
// count is in the type.
template <std::size_t Expected, class L>
constexpr void check_label_count() noexcept {
  constexpr std::size_t given = static_count<std::remove_cvref_t<L>>;
  if constexpr (given != std::dynamic_extent)
    static_assert(label_count_matches<label_count<given>, label_count<Expected>>,
                  "write_svg_heatmap(os, weights, row_labels, col_labels) and render_terminal(...) require one "
                  "label per row and one per column of weights");
}

// The labels as string views into the caller's strings.
template <class L>
std::vector<std::string_view> views_of(const L& given) {
  std::vector<std::string_view> out;
  out.reserve(static_cast<std::size_t>(std::ranges::size(given)));
  for (auto&& label_text : given) out.emplace_back(label_text);
  return out;
}

}  // namespace detail::heatmap

/// Writes `weights` as a self-contained SVG heatmap: a title, the row (query) labels down the
/// left, the column (key) labels across the top, one coloured cell per weight with its value
/// when the matrix is small, and a colour legend. Every label is XML-escaped. Returns false (and
/// sets failbit, writing nothing) for invalid options or a wrong number of labels.
template <class T, std::size_t R, std::size_t C, heatmap_labels Rows, heatmap_labels Cols>
bool write_svg_heatmap(std::ostream& os, const matrix<T, R, C>& weights, const Rows& row_labels, const Cols& col_labels,
                       const svg_heatmap_options& opts = {}) {
  detail::heatmap::check_label_count<R, Rows>();
  detail::heatmap::check_label_count<C, Cols>();
  return detail::heatmap::svg(os, weights, detail::heatmap::views_of(row_labels), detail::heatmap::views_of(col_labels),
                              opts);
}

/// write_svg_heatmap with braced label lists: `write_svg_heatmap(os, w, {"a", "b"}, {"x", "y", "z"})`.
/// Their length is checked at run time.
template <class T, std::size_t R, std::size_t C>
bool write_svg_heatmap(std::ostream& os, const matrix<T, R, C>& weights,
                       std::initializer_list<std::string_view> row_labels,
                       std::initializer_list<std::string_view> col_labels, const svg_heatmap_options& opts = {}) {
  return detail::heatmap::svg(os, weights, std::span<const std::string_view>{row_labels.begin(), row_labels.size()},
                              std::span<const std::string_view>{col_labels.begin(), col_labels.size()}, opts);
}

/// write_svg_heatmap for self-attention: one list of tokens labels both axes.
template <class T, std::size_t N, heatmap_labels Labels>
bool write_svg_heatmap(std::ostream& os, const matrix<T, N, N>& weights, const Labels& labels,
                       const svg_heatmap_options& opts = {}) {
  detail::heatmap::check_label_count<N, Labels>();
  const auto views = detail::heatmap::views_of(labels);
  return detail::heatmap::svg(os, weights, views, views, opts);
}

/// write_svg_heatmap for self-attention with a braced list of tokens, checked at run time.
template <class T, std::size_t N>
bool write_svg_heatmap(std::ostream& os, const matrix<T, N, N>& weights, std::initializer_list<std::string_view> labels,
                       const svg_heatmap_options& opts = {}) {
  const std::span<const std::string_view> views{labels.begin(), labels.size()};
  return detail::heatmap::svg(os, weights, views, views, opts);
}

/// Draws `weights` in a terminal: row (query) labels on the left, column (key) labels on top,
/// one shaded or coloured cell per weight, and a legend line. Returns false (and sets failbit,
/// writing nothing) for invalid options or a wrong number of labels.
template <class T, std::size_t R, std::size_t C, heatmap_labels Rows, heatmap_labels Cols>
bool render_terminal(std::ostream& os, const matrix<T, R, C>& weights, const Rows& row_labels, const Cols& col_labels,
                     const terminal_heatmap_options& opts = {}) {
  detail::heatmap::check_label_count<R, Rows>();
  detail::heatmap::check_label_count<C, Cols>();
  return detail::heatmap::terminal(os, weights, detail::heatmap::views_of(row_labels),
                                   detail::heatmap::views_of(col_labels), opts,
                                   detail::heatmap::uses_color(opts.colors));
}

/// render_terminal with braced label lists, checked at run time.
template <class T, std::size_t R, std::size_t C>
bool render_terminal(std::ostream& os, const matrix<T, R, C>& weights,
                     std::initializer_list<std::string_view> row_labels,
                     std::initializer_list<std::string_view> col_labels, const terminal_heatmap_options& opts = {}) {
  return detail::heatmap::terminal(os, weights,
                                   std::span<const std::string_view>{row_labels.begin(), row_labels.size()},
                                   std::span<const std::string_view>{col_labels.begin(), col_labels.size()}, opts,
                                   detail::heatmap::uses_color(opts.colors));
}

/// render_terminal for self-attention: one list of tokens labels both axes.
template <class T, std::size_t N, heatmap_labels Labels>
bool render_terminal(std::ostream& os, const matrix<T, N, N>& weights, const Labels& labels,
                     const terminal_heatmap_options& opts) {
  detail::heatmap::check_label_count<N, Labels>();
  const auto views = detail::heatmap::views_of(labels);
  return detail::heatmap::terminal(os, weights, views, views, opts, detail::heatmap::uses_color(opts.colors));
}

/// render_terminal for self-attention: one list of tokens labels both axes; `colors` picks shades,
/// 24-bit colour, or (automatic) whichever COLORTERM announces.
template <class T, std::size_t N, heatmap_labels Labels>
bool render_terminal(std::ostream& os, const matrix<T, N, N>& weights, const Labels& labels,
                     terminal_colors colors = terminal_colors::automatic) {
  return render_terminal(os, weights, labels, terminal_heatmap_options{.colors = colors});
}

/// render_terminal for self-attention with a braced list of tokens, checked at run time.
template <class T, std::size_t N>
bool render_terminal(std::ostream& os, const matrix<T, N, N>& weights, std::initializer_list<std::string_view> labels,
                     terminal_colors colors = terminal_colors::automatic) {
  const std::span<const std::string_view> views{labels.begin(), labels.size()};
  return detail::heatmap::terminal(os, weights, views, views, terminal_heatmap_options{.colors = colors},
                                   detail::heatmap::uses_color(colors));
}

/// render_terminal for self-attention with a braced list of tokens and options.
template <class T, std::size_t N>
bool render_terminal(std::ostream& os, const matrix<T, N, N>& weights, std::initializer_list<std::string_view> labels,
                     const terminal_heatmap_options& opts) {
  const std::span<const std::string_view> views{labels.begin(), labels.size()};
  return detail::heatmap::terminal(os, weights, views, views, opts, detail::heatmap::uses_color(opts.colors));
}

}  // namespace static_attention

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
// Streams and strings come through print.hpp, the library's one door to <ostream> and <string>.
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
#include <static_attention/matrix.hpp>
#include <static_attention/print.hpp>
#include <string_view>
#include <type_traits>
#include <vector>

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

struct rgb {
  std::uint8_t r, g, b;
};

// Viridis (matplotlib's default colour map) at eleven evenly spaced points; colours between them
// are interpolated linearly, which keeps the table short and the scale smooth.
inline constexpr std::array<rgb, 11> viridis_points{{{0x44, 0x01, 0x54},
                                                     {0x48, 0x24, 0x75},
                                                     {0x41, 0x44, 0x87},
                                                     {0x35, 0x5f, 0x8d},
                                                     {0x2a, 0x78, 0x8e},
                                                     {0x21, 0x91, 0x8c},
                                                     {0x22, 0xa8, 0x84},
                                                     {0x44, 0xbf, 0x70},
                                                     {0x7a, 0xd1, 0x51},
                                                     {0xbd, 0xdf, 0x26},
                                                     {0xfd, 0xe7, 0x25}}};
// Cells whose value is -inf, inf or nan.
inline constexpr rgb nonfinite_fill{0xd9, 0xd9, 0xd9};

constexpr rgb viridis(double t) noexcept {
  t = (t >= 0.0 ? (t <= 1.0 ? t : 1.0) : 0.0) * 10.0;  // NaN counts as 0
  const auto k = std::min(static_cast<std::size_t>(t), std::size_t{9});
  const double f = t - static_cast<double>(k);
  const auto mix = [f](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(static_cast<double>(a) + (static_cast<double>(b) - static_cast<double>(a)) * f +
                                     0.5);
  };
  const rgb lo = viridis_points[k], hi = viridis_points[k + 1];
  return {mix(lo.r, hi.r), mix(lo.g, hi.g), mix(lo.b, hi.b)};
}

// Dark text on the bright end of the scale, white on the dark end.
constexpr bool is_light(rgb c) noexcept { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 150.0; }

// Maps finite values onto [0, 1]: the options' bounds, else the finite values' range (scale_of).
// lo and hi are finite, lo <= hi.
//
// No lambdas, and no constructor templates, in the templates of this header: GCC's -Wshadow would
// flag their names against a user's globals of the same names.
struct scale {
  double lo = 0, hi = 1;

  double position(double v) const noexcept {
    // A constant matrix has no range: every cell gets the top of the scale.
    if (!(hi > lo)) return 1.0;
    // In halves, so that a range as wide as the doubles (-1e308 to 1e308) does not overflow.
    const double t = (v / 2 - lo / 2) / (hi / 2 - lo / 2);
    return t >= 0.0 ? (t <= 1.0 ? t : 1.0) : 0.0;  // NaN (a subnormal range) counts as 0
  }
  // Never overflows: each term is at most |lo| or |hi|.
  double value_at(double t) const noexcept { return lo * (1.0 - t) + hi * t; }
};

// The scale, or nothing if the options are invalid: a bound that is not finite, or
// scale_min > scale_max. A single bound beyond the data gives a scale of one value.
template <class T, std::size_t R, std::size_t C>
std::optional<scale> scale_of(const matrix<T, R, C>& m, std::optional<double> min, std::optional<double> max) {
  if ((min && !std::isfinite(*min)) || (max && !std::isfinite(*max)) || (min && max && *min > *max))
    return std::nullopt;
  bool any = false;
  double data_lo = 0, data_hi = 0;
  for (const T& v : m) {
    const auto x = static_cast<double>(v);
    if (!std::isfinite(x)) continue;
    data_lo = any ? std::min(data_lo, x) : x;
    data_hi = any ? std::max(data_hi, x) : x;
    any = true;
  }
  scale sc{min.value_or(data_lo), max.value_or(data_hi)};
  if (sc.hi < sc.lo) {
    if (min)
      sc.hi = sc.lo;
    else
      sc.lo = sc.hi;
  }
  return sc;
}

inline int clamped_precision(int precision) noexcept { return std::clamp(precision, 0, 17); }

inline std::string fixed(double v, int precision) {
  return detail::chars_of(v, std::chars_format::fixed, clamped_precision(precision));
}

// The text of one value for a reader: -∞ for a masked score rather than -inf, and 1.00e+308
// rather than 309 digits.
inline std::string value_text(double v, int precision) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "\u2212\u221e" : "\u221e";
  std::string s = std::fabs(v) < 1e6 ? fixed(v, precision)
                                     : detail::chars_of(v, std::chars_format::scientific, clamped_precision(precision));
  if (s.front() == '-') s.replace(0, 1, "\u2212");  // a true minus sign, as the width of a digit
  return s;
}

// Decodes one UTF-8 code point at s[i], advancing i; an invalid sequence gives U+FFFD and
// consumes one byte, so that any bytes come out as well-formed text.
constexpr char32_t next_code_point(std::string_view s, std::size_t& i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  std::size_t len = 0;
  char32_t cp = 0;
  if (b0 < 0x80) {
    ++i;
    return b0;
  } else if ((b0 & 0xe0) == 0xc0) {
    len = 2;
    cp = b0 & 0x1fu;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3;
    cp = b0 & 0x0fu;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4;
    cp = b0 & 0x07u;
  } else {
    ++i;
    return 0xfffd;
  }
  if (i + len > s.size()) {
    ++i;
    return 0xfffd;
  }
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      ++i;
      return 0xfffd;
    }
    cp = (cp << 6) | (byte(i + k) & 0x3fu);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not text.
  constexpr char32_t min_of_length[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_of_length[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
    ++i;
    return 0xfffd;
  }
  i += len;
  return cp;
}

inline void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// Text as XML character data or an attribute value: markup characters escaped, and characters
// XML 1.0 forbids (control characters, broken UTF-8) replaced by U+FFFD, so xmllint accepts any
// label.
inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char32_t cp = next_code_point(s, i);
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default: {
        const bool allowed = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp != 0xfffe && cp != 0xffff);
        append_utf8(out, allowed ? cp : char32_t{0xfffd});
      }
    }
  }
  return out;
}

// Columns a label takes in a terminal: one per code point (tokens are rarely East Asian wide).
constexpr std::size_t text_columns(std::string_view s) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size(); ++n) next_code_point(s, i);
  return n;
}

// A control character (C0, DEL or C1), which would move a terminal's cursor or start an escape
// sequence (U+009B is CSI on some terminals).
constexpr bool is_control(char32_t cp) noexcept { return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f); }

// A label fitted to exactly `width` columns: cut with "…" when too long, padded when short, and
// stripped of control characters, which would move the terminal's cursor.
inline std::string fit(std::string_view s, std::size_t width, bool right_align = false) {
  std::string out;
  std::size_t cols = 0;
  const std::size_t total = text_columns(s);
  for (std::size_t i = 0; i < s.size() && cols < width;) {
    char32_t cp = next_code_point(s, i);
    if (total > width && cols + 1 == width) cp = 0x2026;  // …
    if (is_control(cp)) cp = 0xfffd;
    append_utf8(out, cp);
    ++cols;
  }
  const std::string pad(width - cols, ' ');
  return right_align ? pad + out : out + pad;
}

// A label centred in `width` columns, cut and stripped of control characters as by fit().
inline std::string centered(std::string_view s, std::size_t width) {
  const std::size_t cols = text_columns(s);
  if (cols >= width) return fit(s, width);
  const std::size_t left = (width - cols) / 2;
  return std::string(left, ' ') + fit(s, cols) + std::string(width - cols - left, ' ');
}

// Columns of the widest label.
inline std::size_t widest(std::span<const std::string_view> labels) noexcept {
  std::size_t n = 0;
  for (const std::string_view l : labels) n = std::max(n, text_columns(l));
  return n;
}

inline std::string hex(rgb c) {
  constexpr char digits[] = "0123456789abcdef";
  std::string s = "#";
  for (const std::uint8_t v : {c.r, c.g, c.b}) {
    s += digits[v >> 4];
    s += digits[v & 0xf];
  }
  return s;
}

// A length in pixels, to one decimal: SVG coordinates need no more.
inline std::string px(double v) { return fixed(v, 1); }

// The terminal's shading blocks, lightest to full: ░▒▓█.
inline constexpr std::array<std::string_view, 4> shades{"\u2591", "\u2592", "\u2593", "\u2588"};

// The block of a position on the scale (0 to 1; anything else, NaN included, is clamped).
inline std::string_view shade(double position) noexcept {
  const double level = position >= 0.0 ? position * 4 : 0.0;
  return shades[level < 3.0 ? static_cast<std::size_t>(level) : std::size_t{3}];
}

// The escape sequence setting the foreground ("38") or background ("48") to a 24-bit colour.
inline std::string ansi(std::string_view layer, rgb c) {
  return "\x1b[" + std::string(layer) + ";2;" + std::to_string(c.r) + ';' + std::to_string(c.g) + ';' +
         std::to_string(c.b) + 'm';
}

inline bool colorterm_says_truecolor() {
  const char* env = std::getenv("COLORTERM");  // NOLINT(concurrency-mt-unsafe): read once per call
  if (env == nullptr) return false;
  const std::string_view v(env);
  return v == "truecolor" || v == "24bit";
}

}  // namespace detail::heatmap

namespace detail::heatmap {

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

template <class T, std::size_t R, std::size_t C>
bool svg(std::ostream& os, const matrix<T, R, C>& weights, std::span<const std::string_view> row_labels,
         std::span<const std::string_view> col_labels, const svg_heatmap_options& opts) {
  namespace h = detail::heatmap;
  const std::optional<h::scale> valid_scale = h::scale_of(weights, opts.scale_min, opts.scale_max);
  if (!valid_scale || row_labels.size() != R || col_labels.size() != C) {
    os.setstate(std::ios_base::failbit);
    return false;
  }
  const h::scale sc = *valid_scale;
  const bool values = opts.show_values.value_or(R <= 12 && C <= 12);
  const double cell = std::max(opts.cell_size, 8);
  const double font = 13, char_w = font * 0.62;  // DejaVu Sans / Helvetica average advance
  const double value_font = std::clamp(cell * 0.28, 7.0, 14.0);
  const double pad = 16, title_h = 36, axis_h = 22;

  const double row_label_w = static_cast<double>(h::widest(row_labels)) * char_w;
  const double col_label_w = static_cast<double>(h::widest(col_labels)) * char_w;
  // Column labels that fit a cell stand upright; longer ones are turned 45 degrees.
  const bool slanted = col_label_w > cell - 6;
  const double slant = 0.7071;
  const double col_labels_h = slanted ? col_label_w * slant + font : font * 1.6;
  const double overhang = slanted ? std::max(0.0, col_label_w * slant - cell / 2) : 0.0;

  const double grid_x = pad + axis_h + row_label_w + 10;
  const double grid_y = pad + title_h + axis_h + col_labels_h;
  const double grid_w = cell * static_cast<double>(C), grid_h = cell * static_cast<double>(R);
  const double legend_x = grid_x + grid_w + std::max(24.0, overhang + 12);
  const double legend_h = std::max(grid_h, 120.0);
  const double legend_w = 16;
  std::array<std::string, 5> ticks;
  double tick_w = 0;
  for (std::size_t k = 0; k < ticks.size(); ++k) {
    ticks[k] = h::value_text(sc.value_at(static_cast<double>(k) / 4.0), opts.value_precision);
    tick_w = std::max(tick_w, static_cast<double>(h::text_columns(ticks[k])) * char_w);
  }
  const double width = std::max(legend_x + legend_w + 8 + tick_w + pad,
                                pad * 2 + static_cast<double>(h::text_columns(opts.title)) * 18 * 0.62);
  const double height = grid_y + std::max(grid_h, legend_h) + pad;

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + h::px(width) + "\" height=\"" + h::px(height) +
       "\" viewBox=\"0 0 " + h::px(width) + ' ' + h::px(height) +
       "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  s += "<title>" + h::xml_escape(opts.title) + "</title>\n";
  s += "<desc>Rows are " + h::xml_escape(opts.row_axis) + ", columns are " + h::xml_escape(opts.col_axis) +
       "; brighter means a larger value.</desc>\n";
  // The gradient of the legend, bottom (smallest) to top (largest).
  s += "<defs><linearGradient id=\"static-attention-scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (std::size_t k = 0; k < h::viridis_points.size(); ++k)
    s += "<stop offset=\"" + h::fixed(static_cast<double>(k) / 10.0, 1) + "\" stop-color=\"" +
         h::hex(h::viridis_points[k]) + "\"/>";
  s += "</linearGradient></defs>\n";
  s += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + h::px(width) + "\" height=\"" + h::px(height) +
       "\" fill=\"#ffffff\"/>\n";
  s += "<text class=\"title\" x=\"" + h::px(width / 2) + "\" y=\"" + h::px(pad + 20) +
       "\" text-anchor=\"middle\" font-size=\"18\" font-weight=\"bold\" fill=\"#222222\">" + h::xml_escape(opts.title) +
       "</text>\n";
  s += "<text class=\"axis\" x=\"" + h::px(grid_x + grid_w / 2) + "\" y=\"" + h::px(pad + title_h + 14) +
       "\" text-anchor=\"middle\" font-size=\"13\" font-style=\"italic\" fill=\"#555555\">" +
       h::xml_escape(opts.col_axis) + "</text>\n";
  const double row_axis_x = pad + 12, row_axis_y = grid_y + grid_h / 2;
  s += "<text class=\"axis\" x=\"" + h::px(row_axis_x) + "\" y=\"" + h::px(row_axis_y) + "\" transform=\"rotate(-90 " +
       h::px(row_axis_x) + ' ' + h::px(row_axis_y) +
       ")\" text-anchor=\"middle\" font-size=\"13\" font-style=\"italic\" fill=\"#555555\">" +
       h::xml_escape(opts.row_axis) + "</text>\n";

  for (std::size_t j = 0; j < C; ++j) {
    const double x = grid_x + cell * (static_cast<double>(j) + 0.5);
    const double y = grid_y - (slanted ? 6 : font * 0.6);
    s += "<text class=\"col-label\" x=\"" + h::px(x) + "\" y=\"" + h::px(y) + "\" font-size=\"13\" fill=\"#222222\"";
    s += slanted ? " text-anchor=\"start\" transform=\"rotate(-45 " + h::px(x) + ' ' + h::px(y) + ")\">"
                 : std::string(" text-anchor=\"middle\">");
    s += h::xml_escape(col_labels[j]) + "</text>\n";
  }
  for (std::size_t i = 0; i < R; ++i) {
    const double y = grid_y + cell * (static_cast<double>(i) + 0.5) + font * 0.35;
    s += "<text class=\"row-label\" x=\"" + h::px(grid_x - 8) + "\" y=\"" + h::px(y) +
         "\" text-anchor=\"end\" font-size=\"13\" fill=\"#222222\">" + h::xml_escape(row_labels[i]) + "</text>\n";
  }

  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) {
      const auto v = static_cast<double>(weights(i, j));
      const h::rgb fill = std::isfinite(v) ? h::viridis(sc.position(v)) : h::nonfinite_fill;
      const double x = grid_x + cell * static_cast<double>(j), y = grid_y + cell * static_cast<double>(i);
      const std::string text = h::value_text(v, opts.value_precision);
      s += "<rect class=\"cell\" x=\"" + h::px(x) + "\" y=\"" + h::px(y) + "\" width=\"" + h::px(cell) +
           "\" height=\"" + h::px(cell) + "\" fill=\"" + h::hex(fill) + "\" stroke=\"#ffffff\" stroke-width=\"1\">";
      // A tooltip in browsers: which query looks at which key, and how much.
      s += "<title>" + h::xml_escape(row_labels[i]) + " \u2192 " + h::xml_escape(col_labels[j]) + ": " + text +
           "</title></rect>\n";
      if (values) {
        s += "<text class=\"value\" x=\"" + h::px(x + cell / 2) + "\" y=\"" + h::px(y + cell / 2 + value_font * 0.35) +
             "\" text-anchor=\"middle\" font-size=\"" + h::px(value_font) + "\" fill=\"" +
             (h::is_light(fill) ? "#111111" : "#ffffff") + "\">" + text + "</text>\n";
      }
    }
  }

  s += "<rect class=\"legend-bar\" x=\"" + h::px(legend_x) + "\" y=\"" + h::px(grid_y) + "\" width=\"" +
       h::px(legend_w) + "\" height=\"" + h::px(legend_h) +
       "\" fill=\"url(#static-attention-scale)\" stroke=\"#888888\" stroke-width=\"0.5\"/>\n";
  for (std::size_t k = 0; k < ticks.size(); ++k) {
    const double y = grid_y + legend_h * (1.0 - static_cast<double>(k) / 4.0);
    s += "<line class=\"legend-tick\" x1=\"" + h::px(legend_x + legend_w) + "\" y1=\"" + h::px(y) + "\" x2=\"" +
         h::px(legend_x + legend_w + 4) + "\" y2=\"" + h::px(y) + "\" stroke=\"#555555\"/>\n";
    s += "<text class=\"legend-label\" x=\"" + h::px(legend_x + legend_w + 7) + "\" y=\"" + h::px(y + 4) +
         "\" font-size=\"11\" fill=\"#222222\">" + ticks[k] + "</text>\n";
  }
  s += "</svg>\n";
  os << s;
  return true;
}

template <class T, std::size_t R, std::size_t C>
bool terminal(std::ostream& os, const matrix<T, R, C>& weights, std::span<const std::string_view> row_labels,
              std::span<const std::string_view> col_labels, const terminal_heatmap_options& opts) {
  namespace h = detail::heatmap;
  const std::optional<h::scale> valid_scale = h::scale_of(weights, opts.scale_min, opts.scale_max);
  if (!valid_scale || row_labels.size() != R || col_labels.size() != C) {
    os.setstate(std::ios_base::failbit);
    return false;
  }
  const h::scale sc = *valid_scale;
  const bool color = opts.colors == terminal_colors::truecolor ||
                     (opts.colors == terminal_colors::automatic && h::colorterm_says_truecolor());

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
                                   detail::heatmap::views_of(col_labels), opts);
}

/// render_terminal with braced label lists, checked at run time.
template <class T, std::size_t R, std::size_t C>
bool render_terminal(std::ostream& os, const matrix<T, R, C>& weights,
                     std::initializer_list<std::string_view> row_labels,
                     std::initializer_list<std::string_view> col_labels, const terminal_heatmap_options& opts = {}) {
  return detail::heatmap::terminal(os, weights,
                                   std::span<const std::string_view>{row_labels.begin(), row_labels.size()},
                                   std::span<const std::string_view>{col_labels.begin(), col_labels.size()}, opts);
}

/// render_terminal for self-attention: one list of tokens labels both axes.
template <class T, std::size_t N, heatmap_labels Labels>
bool render_terminal(std::ostream& os, const matrix<T, N, N>& weights, const Labels& labels,
                     const terminal_heatmap_options& opts) {
  detail::heatmap::check_label_count<N, Labels>();
  const auto views = detail::heatmap::views_of(labels);
  return detail::heatmap::terminal(os, weights, views, views, opts);
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
  return detail::heatmap::terminal(os, weights, views, views, terminal_heatmap_options{.colors = colors});
}

/// render_terminal for self-attention with a braced list of tokens and options.
template <class T, std::size_t N>
bool render_terminal(std::ostream& os, const matrix<T, N, N>& weights, std::initializer_list<std::string_view> labels,
                     const terminal_heatmap_options& opts) {
  const std::span<const std::string_view> views{labels.begin(), labels.size()};
  return detail::heatmap::terminal(os, weights, views, views, opts);
}

}  // namespace static_attention

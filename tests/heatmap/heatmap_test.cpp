// SPDX-License-Identifier: BSL-1.0
// write_svg_heatmap and render_terminal: the structure of their output (run-time checks).
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <span>
#include <sstream>
#include <static_attention/io/heatmap.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "chapter_weights.hpp"

namespace sa = static_attention;
using heatmap_test::chapter_tokens;
using heatmap_test::chapter_weights;

namespace {

std::size_t count(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

template <class M, class... Args>
std::string svg_of(const M& m, const Args&... args) {
  std::ostringstream os;
  sa::write_svg_heatmap(os, m, args...);
  return os.str();
}

template <class M, class... Args>
std::string terminal_of(const M& m, const Args&... args) {
  std::ostringstream os;
  sa::render_terminal(os, m, args...);
  return os.str();
}

// A row of the shades rendering: each level (0 to 3) as a cell of seven ░, ▒, ▓ or █.
std::string shade_cells(std::initializer_list<int> levels) {
  constexpr std::string_view shades[] = {"\u2591", "\u2592", "\u2593", "\u2588"};
  std::string row;
  for (const int level : levels) {
    if (!row.empty()) row += ' ';
    for (int k = 0; k < 7; ++k) row += shades[level];
  }
  return row;
}

}  // namespace

TEST_CASE("the SVG of the chapter's weights has one cell, one value and two labels per token") {
  const std::string svg = svg_of(chapter_weights, chapter_tokens, sa::svg_heatmap_options{.title = "Chapter 3"});
  CHECK(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  // Background, 36 cells and the legend's bar.
  CHECK(count(svg, "<rect") == 1 + 36 + 1);
  CHECK(count(svg, "<rect class=\"cell\"") == 36);
  CHECK(count(svg, "class=\"value\"") == 36);
  CHECK(count(svg, "class=\"row-label\"") == 6);
  CHECK(count(svg, "class=\"col-label\"") == 6);
  CHECK(count(svg, "class=\"legend-bar\"") == 1);
  CHECK(count(svg, "class=\"legend-label\"") == 5);
  CHECK(count(svg, "<stop ") == 11);
  CHECK(count(svg, ">Chapter 3</text>") == 1);
  CHECK(count(svg, ">journey</text>") == 2);  // as a query and as a key
  CHECK(count(svg, ">keys</text>") == 1);
  CHECK(count(svg, ">queries</text>") == 1);
  // Values to two decimals; the scale runs from the smallest weight to the largest.
  CHECK(count(svg, ">0.21</text>") == 3);
  CHECK(count(svg, "<title>journey \u2192 journey: 0.24</title>") == 1);
  CHECK(count(svg, "class=\"legend-label\" x=") == 5);
  CHECK(svg.find(">0.10</text>") != std::string::npos);
  CHECK(svg.find(">0.24</text>") != std::string::npos);
  // The largest weight gets the top of the scale, the smallest its bottom.
  CHECK(count(svg, "fill=\"#fde725\"") == 1);
  CHECK(count(svg, "fill=\"#440154\"") == 1);
}

TEST_CASE("labels and the title are XML-escaped, and bytes XML forbids are replaced") {
  const sa::matrix<float, 2, 3> m{{0.1f, 0.2f, 0.7f}, {0.3f, 0.3f, 0.4f}};
  const std::array<std::string_view, 2> rows{"<b>bold</b>", "a & b"};
  const std::array<std::string_view, 3> cols{"\"quoted\"", "it's", "bell\x07 and \xff"};
  const std::string svg = svg_of(m, rows, cols, sa::svg_heatmap_options{.title = "x < y && y > z"});
  CHECK(svg.find("<b>") == std::string::npos);
  CHECK(count(svg, ">&lt;b&gt;bold&lt;/b&gt;</text>") == 1);
  CHECK(count(svg, ">a &amp; b</text>") == 1);
  CHECK(count(svg, ">&quot;quoted&quot;</text>") == 1);
  CHECK(count(svg, ">it&apos;s</text>") == 1);
  CHECK(count(svg, ">bell\uFFFD and \uFFFD</text>") == 1);
  CHECK(count(svg, "x &lt; y &amp;&amp; y &gt; z") == 2);  // <title> and the heading
  CHECK(count(svg, "<rect class=\"cell\"") == 6);
}

TEST_CASE("values are printed in the cells only for small matrices, unless asked") {
  const auto big = sa::full<double, 13, 13>(0.5);
  std::array<std::string_view, 13> labels{};
  labels.fill("t");
  CHECK(count(svg_of(big, labels), "class=\"value\"") == 0);
  CHECK(count(svg_of(big, labels, sa::svg_heatmap_options{.show_values = true}), "class=\"value\"") == 169);
  CHECK(count(svg_of(chapter_weights, chapter_tokens, sa::svg_heatmap_options{.show_values = false}),
              "class=\"value\"") == 0);
  CHECK(count(svg_of(big, labels), "<rect class=\"cell\"") == 169);
}

TEST_CASE("masked scores (-inf) get a grey cell and a minus infinity") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const sa::matrix<double, 2, 2> scores{{0.5, -inf}, {0.25, 1.0}};
  const std::array<std::string_view, 2> labels{"a", "b"};
  const std::string svg = svg_of(scores, labels);
  CHECK(count(svg, "fill=\"#d9d9d9\"") == 1);
  CHECK(count(svg, ">\u2212\u221e</text>") == 1);
  // The finite values still span the whole scale.
  CHECK(count(svg, "fill=\"#fde725\"") == 1);
  CHECK(count(svg, "fill=\"#440154\"") == 1);
}

TEST_CASE("scale_min and scale_max fix the colour scale") {
  const std::string svg =
      svg_of(chapter_weights, chapter_tokens, sa::svg_heatmap_options{.scale_min = 0.0, .scale_max = 1.0});
  for (const std::string_view tick : {">0.00</text>", ">0.25</text>", ">0.50</text>", ">0.75</text>", ">1.00</text>"})
    CHECK(count(svg, tick) == 1);
  CHECK(count(svg, "fill=\"#fde725\"") == 0);  // no weight comes near 1
}

TEST_CASE("the terminal rendering in shades: labels, ░▒▓█ cells, a legend, no escape codes") {
  const std::string out = terminal_of(chapter_weights, chapter_tokens, sa::terminal_colors::shades);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(count(out, "\n") == 1 + 6 + 1);
  CHECK(out.starts_with("         Your   journey starts   with     one    step\n"));
  // journey attends most to journey and starts (0.24, 0.23), least to with and one (0.12, 0.11).
  CHECK(count(out, "journey " + shade_cells({1, 3, 3, 0, 0, 1}) + "\n") == 1);
  CHECK(count(out, "   step " + shade_cells({1, 3, 3, 1, 0, 2}) + "\n") == 1);
  CHECK(out.ends_with("        0.10 \u2591\u2591\u2592\u2592\u2593\u2593\u2588\u2588 0.24\n"));
}

TEST_CASE("the terminal rendering in 24-bit colour prints each value on its colour") {
  const std::string out = terminal_of(chapter_weights, chapter_tokens, sa::terminal_colors::truecolor);
  CHECK(count(out, "\x1b[48;2;") == 36 + 16);
  CHECK(count(out, "\x1b[48;2;253;231;37m\x1b[38;2;17;17;17m 0.24  \x1b[0m") == 1);
  CHECK(count(out, "\x1b[48;2;68;1;84m\x1b[38;2;255;255;255m 0.10  \x1b[0m") == 1);
  CHECK(out.find("\u2588") == std::string::npos);
}

TEST_CASE("automatic colours follow COLORTERM") {
  ::setenv("COLORTERM", "truecolor", 1);
  CHECK(terminal_of(chapter_weights, chapter_tokens).find("\x1b[48;2;") != std::string::npos);
  ::setenv("COLORTERM", "24bit", 1);
  CHECK(terminal_of(chapter_weights, chapter_tokens).find("\x1b[48;2;") != std::string::npos);
  ::unsetenv("COLORTERM");
  CHECK(terminal_of(chapter_weights, chapter_tokens).find('\x1b') == std::string::npos);
}

TEST_CASE("terminal labels are cut to fit, and control characters cannot reach the terminal") {
  const sa::matrix<double, 2, 2> m{{0.5, 0.5}, {0.1, 0.9}};
  const std::array<std::string_view, 2> rows{"a\x1b[31m", "second"};
  const std::array<std::string_view, 2> cols{"extraordinarily", "b"};
  const std::string out =
      terminal_of(m, rows, cols, sa::terminal_heatmap_options{.colors = sa::terminal_colors::shades});
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(count(out, "extraor\u2026") == 1);
  CHECK(count(out, "a\uFFFD[31m ") == 1);
}

TEST_CASE("values up to +-DBL_MAX and non-finite cells: finite output, non-finite cells drawn as such") {
  // The reviewer's matrix: the range is 2e308, which overflowed into NaN positions (UB in the cast).
  const sa::matrix<double, 2, 2> wide{{1e308, -1e308}, {0, 1}};
  const std::array<std::string_view, 2> labels{"a", "b"};
  const std::string svg = svg_of(wide, labels);
  CHECK(count(svg, "fill=\"#fde725\"") == 1);   // 1e308: the top of the scale
  CHECK(count(svg, "fill=\"#440154\"") == 1);   // -1e308: the bottom
  CHECK(count(svg, "fill=\"#21918c\"") == 2);   // 0 and 1: the middle, viridis(0.5)
  CHECK(count(svg, ">1.00e+308</text>") == 2);  // the cell and the top of the legend
  CHECK(count(svg, ">\u22121.00e+308</text>") == 2);
  CHECK(count(svg, ">\u22125.00e+307</text>") == 1);  // the legend's first quarter, computed without overflow
  CHECK(svg.find("NaN") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  const std::string shades = terminal_of(wide, labels, sa::terminal_colors::shades);
  CHECK(shades.find("NaN") == std::string::npos);
  CHECK(shades.ends_with(" \u22121.00e+308 \u2591\u2591\u2592\u2592\u2593\u2593\u2588\u2588 1.00e+308\n"));

  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const sa::matrix<double, 2, 2> special{{inf, -inf}, {nan, 0.5}};
  const std::string svg2 = svg_of(special, labels);
  CHECK(count(svg2, "fill=\"#d9d9d9\"") == 3);
  CHECK(count(svg2, ">\u221e</text>") == 1);
  CHECK(count(svg2, ">\u2212\u221e</text>") == 1);
  CHECK(count(svg2, ">NaN</text>") == 1);
  CHECK(count(svg2, "fill=\"#fde725\"") == 1);  // the one finite value: a scale of one value, at the top
  const std::string colours = terminal_of(special, labels, sa::terminal_colors::truecolor);
  CHECK(count(colours, "NaN") == 1);
  const sa::matrix<float, 1, 3> extremes{{std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 0}};
  const std::array<std::string_view, 1> row{"r"};
  const std::array<std::string_view, 3> cols{"x", "y", "z"};
  CHECK(count(svg_of(extremes, row, cols), "fill=\"#21918c\"") == 1);
  CHECK(count(svg_of(sa::matrix<double, 1, 2>{{nan, -inf}}, std::array<std::string_view, 1>{"r"},
                     std::array<std::string_view, 2>{"x", "y"}),
              "fill=\"#d9d9d9\"") == 2);
}

TEST_CASE("an invalid scale is refused: false, failbit, nothing written") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double bad : {-inf, inf, nan}) {
    std::ostringstream svg, terminal, svg_max;
    CHECK_FALSE(sa::write_svg_heatmap(svg, chapter_weights, chapter_tokens, {.scale_min = bad}));
    CHECK_FALSE(sa::write_svg_heatmap(svg_max, chapter_weights, chapter_tokens, {.scale_max = bad}));
    CHECK_FALSE(sa::render_terminal(terminal, chapter_weights, chapter_tokens, chapter_tokens, {.scale_min = bad}));
    CHECK((svg.fail() && svg_max.fail() && terminal.fail()));
    CHECK((svg.str().empty() && svg_max.str().empty() && terminal.str().empty()));
  }
  std::ostringstream reversed;
  CHECK_FALSE(sa::write_svg_heatmap(reversed, chapter_weights, chapter_tokens, {.scale_min = 1.0, .scale_max = 0.0}));
  CHECK(reversed.str().empty());
  // Valid: equal bounds, and one bound beyond the data (a scale of one value).
  std::ostringstream equal, beyond;
  CHECK(sa::write_svg_heatmap(equal, chapter_weights, chapter_tokens, {.scale_min = 0.5, .scale_max = 0.5}));
  CHECK(sa::render_terminal(beyond, chapter_weights, chapter_tokens, chapter_tokens,
                            {.colors = sa::terminal_colors::shades, .scale_min = 2.0}));
  CHECK(beyond.str().ends_with(" 2.00 \u2591\u2591\u2592\u2592\u2593\u2593\u2588\u2588 2.00\n"));
}

TEST_CASE("control characters in every label, column labels included, are replaced") {
  const sa::matrix<double, 2, 2> m{{0.5, 0.5}, {0.1, 0.9}};
  for (const auto colors : {sa::terminal_colors::shades, sa::terminal_colors::truecolor}) {
    std::ostringstream os;
    REQUIRE(sa::render_terminal(os, m, {"a", "b"}, {"\x07", "\x1b"}, {.colors = colors}));
    const std::string out = os.str();
    const std::string header = out.substr(0, out.find('\n'));
    CHECK(header.find('\x07') == std::string::npos);
    CHECK(header.find('\x1b') == std::string::npos);
    CHECK(count(header, "\uFFFD") == 2);
    CHECK(out.find('\x07') == std::string::npos);
  }
  // C1 controls (U+009B is CSI on some terminals) and DEL too, in short and long labels.
  const std::string out = terminal_of(m, std::array<std::string_view, 2>{"\u009b2J", "x\x7f"},
                                      std::array<std::string_view, 2>{"\u009b", "long label\x1b[2J"},
                                      sa::terminal_heatmap_options{.colors = sa::terminal_colors::shades});
  CHECK(out.find("\u009b") == std::string::npos);
  CHECK(out.find('\x7f') == std::string::npos);
  CHECK(out.find('\x1b') == std::string::npos);
}

TEST_CASE("labels: braced lists, vectors of strings, spans and arrays give the same picture") {
  const sa::matrix<double, 2, 3> m{{0.1, 0.2, 0.7}, {0.3, 0.3, 0.4}};
  const std::array<std::string_view, 2> rows{"q0", "q1"};
  const std::array<std::string_view, 3> cols{"k0", "k1", "k2"};
  const std::string expected = svg_of(m, rows, cols);
  {
    std::ostringstream os;
    CHECK(sa::write_svg_heatmap(os, m, {"q0", "q1"}, {"k0", "k1", "k2"}));
    CHECK(os.str() == expected);
  }
  const std::vector<std::string> row_strings{"q0", "q1"};
  const std::vector<std::string> col_strings{"k0", "k1", "k2"};
  CHECK(svg_of(m, row_strings, col_strings) == expected);
  const std::span<const std::string_view> dynamic_rows{rows};
  CHECK(svg_of(m, dynamic_rows, cols) == expected);
  const char* const c_rows[] = {"q0", "q1"};
  CHECK(svg_of(m, c_rows, cols) == expected);
  // One list for both axes, braced, with options.
  const auto square = sa::full<double, 2, 2>(0.5);
  std::ostringstream one, one_opts, by_array;
  CHECK(sa::write_svg_heatmap(one, square, {"a", "b"}));
  CHECK(sa::write_svg_heatmap(one_opts, square, {"a", "b"}, {.title = "T"}));
  CHECK(sa::write_svg_heatmap(by_array, square, std::array<std::string_view, 2>{"a", "b"}));
  CHECK(one.str() == by_array.str());
  CHECK(count(one_opts.str(), ">T</text>") == 1);
  CHECK(terminal_of(square, std::vector<std::string>{"a", "b"}, sa::terminal_colors::shades) ==
        terminal_of(square, std::array<std::string_view, 2>{"a", "b"}, sa::terminal_colors::shades));
  // A run-time list of the wrong length: refused (a std::array of the wrong length does not compile).
  std::ostringstream wrong;
  CHECK_FALSE(sa::write_svg_heatmap(wrong, m, std::vector<std::string>{"q0"}, col_strings));
  CHECK(wrong.fail());
  CHECK(wrong.str().empty());
  std::ostringstream wrong_braced;
  CHECK_FALSE(sa::render_terminal(wrong_braced, square, {"a", "b", "c"}));
  CHECK(wrong_braced.str().empty());
}

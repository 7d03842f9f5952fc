// SPDX-License-Identifier: BSL-1.0
// The SVG of a heatmap: its layout, then the preamble, the labels, the cells and the legend.
#pragma once

#include <algorithm>
#include <array>
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

// Where everything goes, in pixels.
struct svg_layout {
  double cell, font, char_w, value_font, pad, title_h, axis_h;
  bool values, slanted;
  double col_labels_h, grid_x, grid_y, grid_w, grid_h, legend_x, legend_h, legend_w, width, height;
  std::array<std::string, 5> ticks;  // the legend's labels, bottom to top
};

template <class Options>
svg_layout svg_layout_of(std::size_t rows, std::size_t cols, std::span<const std::string_view> row_labels,
                         std::span<const std::string_view> col_labels, const scale& sc, const Options& opts) {
  svg_layout l{};
  l.values = opts.show_values.value_or(rows <= 12 && cols <= 12);
  l.cell = std::max(opts.cell_size, 8);
  l.font = 13;
  l.char_w = l.font * 0.62;  // DejaVu Sans / Helvetica average advance
  l.value_font = std::clamp(l.cell * 0.28, 7.0, 14.0);
  l.pad = 16, l.title_h = 36, l.axis_h = 22;
  const double row_label_w = static_cast<double>(widest(row_labels)) * l.char_w;
  const double col_label_w = static_cast<double>(widest(col_labels)) * l.char_w;
  // Column labels that fit a cell stand upright; longer ones are turned 45 degrees.
  l.slanted = col_label_w > l.cell - 6;
  const double slant = 0.7071;
  l.col_labels_h = l.slanted ? col_label_w * slant + l.font : l.font * 1.6;
  const double overhang = l.slanted ? std::max(0.0, col_label_w * slant - l.cell / 2) : 0.0;
  l.grid_x = l.pad + l.axis_h + row_label_w + 10;
  l.grid_y = l.pad + l.title_h + l.axis_h + l.col_labels_h;
  l.grid_w = l.cell * static_cast<double>(cols), l.grid_h = l.cell * static_cast<double>(rows);
  l.legend_x = l.grid_x + l.grid_w + std::max(24.0, overhang + 12);
  l.legend_h = std::max(l.grid_h, 120.0);
  l.legend_w = 16;
  double tick_w = 0;
  for (std::size_t k = 0; k < l.ticks.size(); ++k) {
    l.ticks[k] = value_text(sc.value_at(static_cast<double>(k) / 4.0), opts.value_precision);
    tick_w = std::max(tick_w, static_cast<double>(text_columns(l.ticks[k])) * l.char_w);
  }
  l.width = std::max(l.legend_x + l.legend_w + 8 + tick_w + l.pad,
                     l.pad * 2 + static_cast<double>(text_columns(opts.title)) * 18 * 0.62);
  l.height = l.grid_y + std::max(l.grid_h, l.legend_h) + l.pad;
  return l;
}

// The XML declaration, the title and description, the legend's gradient, the background, the
// title and the two axis names.
template <class Options>
void svg_preamble(std::string& s, const svg_layout& l, const Options& opts) {
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(l.width) + "\" height=\"" + px(l.height) +
       "\" viewBox=\"0 0 " + px(l.width) + ' ' + px(l.height) +
       "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n";
  s += "<title>" + xml_escape(opts.title) + "</title>\n";
  s += "<desc>Rows are " + xml_escape(opts.row_axis) + ", columns are " + xml_escape(opts.col_axis) +
       "; brighter means a larger value.</desc>\n";
  // The gradient of the legend, bottom (smallest) to top (largest).
  s += "<defs><linearGradient id=\"static-attention-scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (std::size_t k = 0; k < viridis_points.size(); ++k)
    s += "<stop offset=\"" + fixed(static_cast<double>(k) / 10.0, 1) + "\" stop-color=\"" + hex(viridis_points[k]) +
         "\"/>";
  s += "</linearGradient></defs>\n";
  s += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + px(l.width) + "\" height=\"" + px(l.height) +
       "\" fill=\"#ffffff\"/>\n";
  s += "<text class=\"title\" x=\"" + px(l.width / 2) + "\" y=\"" + px(l.pad + 20) +
       "\" text-anchor=\"middle\" font-size=\"18\" font-weight=\"bold\" fill=\"#222222\">" + xml_escape(opts.title) +
       "</text>\n";
  s += "<text class=\"axis\" x=\"" + px(l.grid_x + l.grid_w / 2) + "\" y=\"" + px(l.pad + l.title_h + 14) +
       "\" text-anchor=\"middle\" font-size=\"13\" font-style=\"italic\" fill=\"#555555\">" +
       xml_escape(opts.col_axis) + "</text>\n";
  const double row_axis_x = l.pad + 12, row_axis_y = l.grid_y + l.grid_h / 2;
  s += "<text class=\"axis\" x=\"" + px(row_axis_x) + "\" y=\"" + px(row_axis_y) + "\" transform=\"rotate(-90 " +
       px(row_axis_x) + ' ' + px(row_axis_y) +
       ")\" text-anchor=\"middle\" font-size=\"13\" font-style=\"italic\" fill=\"#555555\">" +
       xml_escape(opts.row_axis) + "</text>\n";
}

// The column labels across the top (upright or slanted) and the row labels down the left.
inline void svg_labels(std::string& s, const svg_layout& l, std::span<const std::string_view> row_labels,
                       std::span<const std::string_view> col_labels) {
  for (std::size_t j = 0; j < col_labels.size(); ++j) {
    const double x = l.grid_x + l.cell * (static_cast<double>(j) + 0.5);
    const double y = l.grid_y - (l.slanted ? 6 : l.font * 0.6);
    s += "<text class=\"col-label\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" font-size=\"13\" fill=\"#222222\"";
    s += l.slanted ? " text-anchor=\"start\" transform=\"rotate(-45 " + px(x) + ' ' + px(y) + ")\">"
                   : std::string(" text-anchor=\"middle\">");
    s += xml_escape(col_labels[j]) + "</text>\n";
  }
  for (std::size_t i = 0; i < row_labels.size(); ++i) {
    const double y = l.grid_y + l.cell * (static_cast<double>(i) + 0.5) + l.font * 0.35;
    s += "<text class=\"row-label\" x=\"" + px(l.grid_x - 8) + "\" y=\"" + px(y) +
         "\" text-anchor=\"end\" font-size=\"13\" fill=\"#222222\">" + xml_escape(row_labels[i]) + "</text>\n";
  }
}

// One coloured cell per weight, with a tooltip, and its value when the layout shows values.
template <class T, std::size_t R, std::size_t C>
void svg_cells(std::string& s, const svg_layout& l, const matrix<T, R, C>& weights,
               std::span<const std::string_view> row_labels, std::span<const std::string_view> col_labels,
               const scale& sc, int precision) {
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) {
      const auto v = static_cast<double>(weights(i, j));
      const rgb fill = std::isfinite(v) ? viridis(sc.position(v)) : nonfinite_fill;
      const double x = l.grid_x + l.cell * static_cast<double>(j), y = l.grid_y + l.cell * static_cast<double>(i);
      const std::string text = value_text(v, precision);
      s += "<rect class=\"cell\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(l.cell) + "\" height=\"" +
           px(l.cell) + "\" fill=\"" + hex(fill) + "\" stroke=\"#ffffff\" stroke-width=\"1\">";
      // A tooltip in browsers: which query looks at which key, and how much.
      s += "<title>" + xml_escape(row_labels[i]) + " \u2192 " + xml_escape(col_labels[j]) + ": " + text +
           "</title></rect>\n";
      if (l.values) {
        s += "<text class=\"value\" x=\"" + px(x + l.cell / 2) + "\" y=\"" + px(y + l.cell / 2 + l.value_font * 0.35) +
             "\" text-anchor=\"middle\" font-size=\"" + px(l.value_font) + "\" fill=\"" +
             (is_light(fill) ? "#111111" : "#ffffff") + "\">" + text + "</text>\n";
      }
    }
  }
}

// The colour bar and its five ticks.
inline void svg_legend(std::string& s, const svg_layout& l) {
  s += "<rect class=\"legend-bar\" x=\"" + px(l.legend_x) + "\" y=\"" + px(l.grid_y) + "\" width=\"" + px(l.legend_w) +
       "\" height=\"" + px(l.legend_h) +
       "\" fill=\"url(#static-attention-scale)\" stroke=\"#888888\" stroke-width=\"0.5\"/>\n";
  for (std::size_t k = 0; k < l.ticks.size(); ++k) {
    const double y = l.grid_y + l.legend_h * (1.0 - static_cast<double>(k) / 4.0);
    s += "<line class=\"legend-tick\" x1=\"" + px(l.legend_x + l.legend_w) + "\" y1=\"" + px(y) + "\" x2=\"" +
         px(l.legend_x + l.legend_w + 4) + "\" y2=\"" + px(y) + "\" stroke=\"#555555\"/>\n";
    s += "<text class=\"legend-label\" x=\"" + px(l.legend_x + l.legend_w + 7) + "\" y=\"" + px(y + 4) +
         "\" font-size=\"11\" fill=\"#222222\">" + l.ticks[k] + "</text>\n";
  }
}

// The whole SVG, or false (failbit set, nothing written) for invalid options or label counts.
template <class T, std::size_t R, std::size_t C, class Options>
bool svg(std::ostream& os, const matrix<T, R, C>& weights, std::span<const std::string_view> row_labels,
         std::span<const std::string_view> col_labels, const Options& opts) {
  const std::optional<scale> valid_scale = scale_of(weights, opts.scale_min, opts.scale_max);
  if (!valid_scale || row_labels.size() != R || col_labels.size() != C) {
    os.setstate(std::ios_base::failbit);
    return false;
  }
  const svg_layout l = svg_layout_of(R, C, row_labels, col_labels, *valid_scale, opts);
  std::string s;
  svg_preamble(s, l, opts);
  svg_labels(s, l, row_labels, col_labels);
  svg_cells(s, l, weights, row_labels, col_labels, *valid_scale, opts.value_precision);
  svg_legend(s, l);
  s += "</svg>\n";
  os << s;
  return true;
}

}  // namespace static_attention::detail::heatmap

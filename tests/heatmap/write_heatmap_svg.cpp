// SPDX-License-Identifier: BSL-1.0
// Writes the SVG heatmap that the xmllint and Chromium tests check: the chapter's weights, with
// labels that need escaping. Usage: write_heatmap_svg <out.svg>
#include <array>
#include <fstream>
#include <iostream>
#include <static_attention/io/heatmap.hpp>
#include <string_view>

#include "chapter_weights.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_heatmap_svg <out.svg>\n";
    return 2;
  }
  // The chapter's tokens, three of them spelled to exercise escaping and non-ASCII text.
  constexpr std::array<std::string_view, 6> tokens{"Your", "<journey>", "starts", "with & \"one\"", "one", "st\u00e9p"};
  std::ofstream out(argv[1]);
  static_attention::write_svg_heatmap(out, heatmap_test::chapter_weights, tokens,
                                      {.title = "Simplified self-attention weights <test>"});
  out.close();
  if (!out) {
    std::cerr << "write_heatmap_svg: cannot write " << argv[1] << '\n';
    return 1;
  }
}

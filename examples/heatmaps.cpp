// The chapter's simplified attention weights as heatmaps: an SVG file and the terminal.
//
//   heatmaps [out.svg]   writes the SVG (default: heatmap_plain.svg here) and draws the weights
//                        in the terminal, in 24-bit colour when COLORTERM=truecolor, else in ░▒▓█.
#include <array>
#include <fstream>
#include <iostream>
#include <static_attention/heatmap.hpp>
#include <static_attention/matmul.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/print.hpp>
#include <static_attention/softmax.hpp>
#include <string_view>

namespace sa = static_attention;

// "Your journey starts with one step": one 3-d embedding per token.
constexpr sa::matrix<double, 6, 3> inputs{{0.43, 0.15, 0.89},   // Your
                                          {0.55, 0.87, 0.66},   // journey
                                          {0.57, 0.85, 0.64},   // starts
                                          {0.22, 0.58, 0.33},   // with
                                          {0.77, 0.25, 0.10},   // one
                                          {0.05, 0.80, 0.55}};  // step
constexpr std::array<std::string_view, 6> tokens{"Your", "journey", "starts", "with", "one", "step"};

// Simplified self-attention: scores are dot products of the inputs, weights their row softmax.
constexpr auto weights = sa::softmax(sa::matmul(inputs, sa::transpose(inputs)));

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "heatmap_plain.svg";
  std::ofstream svg(path);
  sa::write_svg_heatmap(svg, weights, tokens, {.title = "Simplified self-attention weights"});
  svg.close();
  if (!svg) {
    std::cerr << "heatmaps: cannot write " << path << '\n';
    return 1;
  }

  std::cout << "Attention weights (each row sums to 1):\n" << weights << "\n\n";
  sa::render_terminal(std::cout, weights, tokens);
  std::cout << "\nSVG written to " << path << '\n';
}

// SPDX-License-Identifier: BSL-1.0
// The chapter's attention weights as heatmaps, as SVG files and in the terminal, for the six
// tokens of "Your journey starts with one step":
//   heatmap_plain.svg    simplified attention (3.3): softmax(x x^T), no trainable weights
//   heatmap_causal.svg   causal attention (3.5): SelfAttention_v2's weights (seed 789), future masked
//   heatmap_head0.svg,   each head of MultiHeadAttention(d_in=3, d_out=2, context_length=6,
//   heatmap_head1.svg    dropout=0.0, num_heads=2) after torch.manual_seed(123) (3.6)
//
//   heatmaps [dir]   writes the SVGs into dir (default: the current directory) and draws every
//                    map in the terminal, in 24-bit colour when COLORTERM=truecolor, else in ░▒▓█.
// Every weight is computed at compile time. Each map's colours span its own smallest to largest
// weight (the legend says which), so that the small differences within a softmax row show.
#include <array>
#include <fstream>
#include <iostream>
#include <static_attention/core/random.hpp>
#include <static_attention/io/heatmap.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/static_attention.hpp>
#include <string>
#include <string_view>

namespace sa = static_attention;

// "Your journey starts with one step": one 3-d embedding per token.
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f},   // Your
                                         {0.55f, 0.87f, 0.66f},   // journey
                                         {0.57f, 0.85f, 0.64f},   // starts
                                         {0.22f, 0.58f, 0.33f},   // with
                                         {0.77f, 0.25f, 0.10f},   // one
                                         {0.05f, 0.80f, 0.55f}};  // step
constexpr std::array<std::string_view, 6> tokens{"Your", "journey", "starts", "with", "one", "step"};

// 3.3: scores are dot products of the inputs, weights their row softmax.
constexpr auto plain_weights = sa::attention_weights(inputs);

// 3.5: SelfAttention_v2's nn.Linear weights (torch.manual_seed(789)), with the future masked.
constexpr auto causal_weights = [] {
  sa::torch_generator gen{789};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  return sa::causal_attention<float, 3, 2>::from_linear(W_query, W_key, W_value).attention_weights(inputs);
}();
static_assert(causal_weights(0, 0) == 1.0f && causal_weights(0, 1) == 0.0f, "the first token sees only itself");

// 3.6: MultiHeadAttention after torch.manual_seed(123); one 6 x 6 map per head.
constexpr auto head_weights = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  const auto out_proj = sa::linear<float, 2, 2>(gen);
  const auto mha =
      sa::multi_head_attention<float, 3, 2, 2, 6>::from_linear(W_query, W_key, W_value, out_proj.weight, out_proj.bias);
  return mha.attention_weights(inputs);  // tensor<float, 2, 6, 6>: heads x queries x keys
}();

// Writes one map as dir/file and draws it in the terminal; false if the file cannot be written.
bool show(const std::string& dir, std::string_view file, std::string_view title, const sa::matrix<float, 6, 6>& w) {
  const std::string path = dir + "/" + std::string(file);
  std::ofstream svg(path);
  sa::write_svg_heatmap(svg, w, tokens, {.title = title});
  svg.close();
  if (!svg) {
    std::cerr << "heatmaps: cannot write " << path << '\n';
    return false;
  }
  std::cout << title << " (" << path << "):\n";
  sa::render_terminal(std::cout, w, tokens);
  std::cout << '\n';
  return true;
}

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  bool ok = show(dir, "heatmap_plain.svg", "Simplified attention weights", plain_weights);
  ok = show(dir, "heatmap_causal.svg", "Causal attention weights (SelfAttention_v2, seed 789)", causal_weights) && ok;
  ok = show(dir, "heatmap_head0.svg", "Multi-head attention, head 0 (seed 123)", head_weights[0]) && ok;
  ok = show(dir, "heatmap_head1.svg", "Multi-head attention, head 1 (seed 123)", head_weights[1]) && ok;
  return ok ? 0 : 1;
}

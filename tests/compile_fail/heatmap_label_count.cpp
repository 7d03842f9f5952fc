// SPDX-License-Identifier: BSL-1.0
// Two labels for the three rows and columns of an attention matrix.
// expect: require one label per row and one per column of weights
// expect: label_count_matches<(static_attention::)?label_count<2>, (static_attention::)?label_count<3> ?>
#include <array>
#include <sstream>
#include <string_view>

#include <static_attention/io/heatmap.hpp>

namespace sa = static_attention;

int main() {
  const auto weights = sa::full<float, 3, 3>(1.0f / 3);
#ifdef SA_TWIN
  // [snippet:right]
  const std::array<std::string_view, 3> tokens{"Your", "journey", "starts"};
  // [/snippet]
#else
  // [snippet:wrong]
  const std::array<std::string_view, 2> tokens{"Your", "journey"};
  // [/snippet]
#endif
  std::ostringstream os;
  return sa::write_svg_heatmap(os, weights, tokens) ? 0 : 1;
}

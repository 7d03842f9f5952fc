// SPDX-License-Identifier: BSL-1.0
// Id 64 in a vocabulary of 64, looked up during constant evaluation.
// expect: index_out_of_range_for_shape
// expect: (Shape = \{64\}|index_out_of_range_for_shape<64UL)
#include <array>

#include <static_attention/nn/embedding.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::embedding<float, 64, 4> tok_emb{};
#ifdef SA_TWIN
  constexpr auto rows = tok_emb(std::array<int, 2>{5, 63});
#else
  constexpr auto rows = tok_emb(std::array<int, 2>{5, 64});
#endif
  return static_cast<int>(rows(0, 0));
}

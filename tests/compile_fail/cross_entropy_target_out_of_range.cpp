// SPDX-License-Identifier: BSL-1.0
// Target 5 for logits over a vocabulary of 5, during constant evaluation (at run time it is
// errc::id_out_of_range).
// expect: cross_entropy_target_outside_vocabulary
// expect: (V = 5|cross_entropy_target_outside_vocabulary<5UL>)
#include <array>

#include <static_attention/nn/loss.hpp>

namespace sa = static_attention;

int main() {
  constexpr sa::matrix<double, 2, 5> logits{};
#ifdef SA_TWIN
  constexpr auto loss = sa::cross_entropy(logits, std::array<int, 2>{4, 0});
#else
  constexpr auto loss = sa::cross_entropy(logits, std::array<int, 2>{5, 0});
#endif
  return static_cast<int>(*loss);
}

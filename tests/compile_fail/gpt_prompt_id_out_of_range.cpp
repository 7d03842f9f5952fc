// SPDX-License-Identifier: BSL-1.0
// A prompt id of 5000 in a vocabulary of 64, generating in constant evaluation: the error names
// the vocabulary size, the id and its position.
// expect: token_id_outside_vocabulary
// expect: (VocabSize = 64|token_id_outside_vocabulary<64UL>)
// expect: 5000
#include <array>

#include <static_attention/nn/gpt.hpp>

namespace sa = static_attention;
inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
inline constexpr sa::gpt_model<float, tiny> model{};

int main() {
#ifdef SA_TWIN
  constexpr auto ids = sa::generate_text_simple<1>(model, std::array<int, 2>{5, 63});
#else
  constexpr auto ids = sa::generate_text_simple<1>(model, std::array<int, 2>{5, 5000});
#endif
  return ids[2];
}

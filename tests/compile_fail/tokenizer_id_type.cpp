// SPDX-License-Identifier: BSL-1.0
// Ids into std::int16_t, which stops at 32767: GPT-2's ids go to 50256.
// expect: gpt2_token_id
// expect: (std::int16_t|short|int16_t)
#include <array>
#include <cstdint>
#include <span>

#include <static_attention/text/gpt2_tokenizer.hpp>

namespace sa = static_attention;

int count_tokens(const sa::gpt2_tokenizer& tok) {
#ifdef SA_TWIN
  std::array<std::int32_t, 8> ids{};
#else
  std::array<std::int16_t, 8> ids{};
#endif
  const auto r = tok.encode("Hello, I am", std::span(ids.data(), ids.size()));
  return r ? static_cast<int>(*r) : -1;
}

int main() { return 0; }

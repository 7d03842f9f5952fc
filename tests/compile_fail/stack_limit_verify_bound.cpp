// SPDX-License-Identifier: BSL-1.0
// Bounding a GPT-2-sized transformer block over 8 tokens with zonotopes of 8 symbols: the
// feed-forward's 8 x 3072 affine forms are 2 MB each, several at once; run, it overflowed the
// default 8 MiB stack. Refused at compile time; with intervals it fits a raised budget.
// expect: this call would put more than STATIC_ATTENTION_STACK_LIMIT bytes \(default 1 MiB\) on the stack
// expect: instead_fewer_symbols_or_rows_or_a_larger_stack_limit
#ifdef SA_TWIN
#define STATIC_ATTENTION_STACK_LIMIT (6u << 20)
#endif
#include <memory>

#include <static_attention/nn/transformer_block.hpp>
#include <static_attention/verify.hpp>

namespace sa = static_attention;
using block = sa::transformer_block<float, 768, 12, 1024>;

int main() {
  static const auto b = std::make_unique<block>();
  static const auto x = std::make_unique<sa::matrix<float, 8, 768>>();
#ifdef SA_TWIN
  const auto y = sa::verify::bound<sa::verify::ibp>(*b, sa::verify::ball(*x, 0x1p-10f));
#else
  const auto y = sa::verify::bound<sa::verify::zonotope<8>>(*b, sa::verify::ball(*x, 0x1p-10f));
#endif
  return y(0, 0).lo < 0.0f ? 1 : 0;
}

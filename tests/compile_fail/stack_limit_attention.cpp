// SPDX-License-Identifier: BSL-1.0
// Exercise 3.3 as the book writes it: mha(x) at GPT-2 size on 1024 tokens holds Q, K, V and
// more, 3 MiB each, on the stack.
// expect: this call would put more than STATIC_ATTENTION_STACK_LIMIT bytes \(default 1 MiB\) on the stack
// expect: stack_use_within<[0-9]+(UL)?, 1048576(UL)?>
// expect: instead_attend_into_att_x_out_cache
#include <memory>

#include <static_attention/nn/kv_cache.hpp>
#include <static_attention/nn/multi_head_attention.hpp>

namespace sa = static_attention;
using mha = sa::multi_head_attention<float, 768, 768, 12, 1024>;

int main() {
  static const auto att = std::make_unique<mha>();
  static const auto x = std::make_unique<sa::matrix<float, 1024, 768>>();
#ifdef SA_TWIN
  static auto out = std::make_unique<sa::matrix<float, 1024, 768>>();
  static auto cache = std::make_unique<sa::kv_cache<float, 1024, 768>>();
  sa::attend_into(*att, *x, *out, *cache);
  return static_cast<int>((*out)(0, 0));
#else
  const auto context = (*att)(*x);
  return static_cast<int>(context(0, 0));
#endif
}

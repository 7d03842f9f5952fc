// SPDX-License-Identifier: BSL-1.0
// docs/tutorial.md, part 4: multi-head attention (the chapter's 3.6): the wrapper of independent
// causal heads, then MultiHeadAttention with its weight split, on a batch.
#include <iostream>
#include <static_attention/core/random.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/static_attention.hpp>

#include "tutorial.hpp"

namespace sa = static_attention;

constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};
constexpr auto batch = sa::stack(inputs, inputs);  // 2 x 6 x 3

// [snippet:wrapper]
// MultiHeadAttentionWrapper(d_in=3, d_out=2, context_length=6, dropout=0.0, num_heads=2) after
// torch.manual_seed(123): two CausalAttention heads, built in order from one generator.
constexpr auto mha_wrapper = [] {
  sa::torch_generator gen{123};
  auto head = [&gen] {
    const auto W_query = sa::linear_weight<float, 3, 2>(gen);
    const auto W_key = sa::linear_weight<float, 3, 2>(gen);
    const auto W_value = sa::linear_weight<float, 3, 2>(gen);
    return sa::causal_attention<float, 3, 2, 6>::from_linear(W_query, W_key, W_value);
  };
  const auto head0 = head();
  const auto head1 = head();
  return sa::make_multi_head_attention_wrapper(head0, head1);
}();
constexpr auto wrapper_context_vecs = mha_wrapper(batch);  // heads concatenated: 2 x 6 x 4
// [/snippet]
void print_wrapper() { std::cout << wrapper_context_vecs << '\n'; }

// [snippet:mha]
// MultiHeadAttention(d_in=3, d_out=2, context_length=6, dropout=0.0, num_heads=2) after
// torch.manual_seed(123): one projection of d_out columns, split into 2 heads of head_dim 1,
// then out_proj, an nn.Linear(2, 2) with bias.
constexpr auto mha = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  const auto out_proj = sa::linear<float, 2, 2>(gen);
  return sa::multi_head_attention<float, 3, 2, /*num_heads=*/2, /*context_length=*/6>::from_linear(
      W_query, W_key, W_value, out_proj.weight, out_proj.bias);
}();
static_assert(decltype(mha)::head_dim == 1);
constexpr auto mha_context_vecs = mha(batch);  // 2 x 6 x 2
// [/snippet]
void print_mha() { std::cout << mha_context_vecs << '\n'; }

// [snippet:heads]
// What each head attends to: num_heads x N x N, every one causal.
constexpr auto head_weights = mha.attention_weights(inputs);  // tensor<float, 2, 6, 6>
static_assert(head_weights(0, 0, 1) == 0.0f && head_weights(1, 0, 1) == 0.0f);
// [/snippet]
void print_heads() { std::cout << head_weights << '\n'; }

int main(int argc, char** argv) {
  const tutorial_section sections[] = {{"wrapper", print_wrapper}, {"mha", print_mha}, {"heads", print_heads}};
  return run_sections(argc, argv, sections);
}

// SPDX-License-Identifier: BSL-1.0
// docs/tutorial.md, part 2: self-attention with trainable weights (the chapter's 3.4), token by
// token, then SelfAttention_v1 and SelfAttention_v2 with the chapter's seeds.
#include <iostream>
#include <static_attention/core/random.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/static_attention.hpp>

#include "tutorial.hpp"

namespace sa = static_attention;

constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};

// [snippet:weights]
// torch.manual_seed(123); W_query, W_key, W_value = (torch.rand(d_in, d_out) for each): d_in 3, d_out 2.
struct qkv {
  sa::matrix<float, 3, 2> W_query, W_key, W_value;
};
constexpr qkv v1_weights = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::rand<float, 3, 2>(gen);  // drawn in this order, as in the chapter
  const auto W_key = sa::rand<float, 3, 2>(gen);
  const auto W_value = sa::rand<float, 3, 2>(gen);
  return qkv{W_query, W_key, W_value};
}();
// [/snippet]

// [snippet:token_2]
constexpr auto x_2 = sa::row(inputs, 1);
constexpr auto query_2 = sa::matmul(x_2, v1_weights.W_query);    // 1 x 2
constexpr auto keys = sa::matmul(inputs, v1_weights.W_key);      // 6 x 2: every token's key
constexpr auto values = sa::matmul(inputs, v1_weights.W_value);  // 6 x 2
static_assert(sa::rows_v<decltype(keys)> == 6 && sa::cols_v<decltype(keys)> == 2);

constexpr auto attn_scores_2 = sa::matmul(query_2, sa::transpose(keys));  // 1 x 6
constexpr float d_k = sa::cols_v<decltype(keys)>;
constexpr auto attn_weights_2 = sa::softmax(attn_scores_2 / sa::sqrt(d_k));  // scaled dot-product
constexpr auto context_vec_2 = sa::matmul(attn_weights_2, values);
// [/snippet]
void print_token_2() {
  std::cout << "query_2: " << query_2 << '\n'
            << "keys: " << sa::rows_v<decltype(keys)> << " x " << sa::cols_v<decltype(keys)> << '\n'
            << "attn_scores_2: " << attn_scores_2 << '\n'
            << "attn_weights_2: " << attn_weights_2 << '\n'
            << "context_vec_2: " << context_vec_2 << '\n';
}

// [snippet:v1]
// SelfAttention_v1: the weights in the x @ W layout, d_in x d_out.
constexpr sa::self_attention<float, 3, 2> sa_v1{v1_weights.W_query, v1_weights.W_key, v1_weights.W_value};
constexpr auto context_v1 = sa_v1(inputs);  // 6 x 3 -> 6 x 2
static_assert(sa::approx_equal(sa::row(context_v1, 1), context_vec_2, 1e-6f));
// [/snippet]
void print_v1() { std::cout << context_v1 << '\n'; }

// [snippet:v2]
// SelfAttention_v2: torch.manual_seed(789); three nn.Linear(d_in, d_out, bias=False), whose
// weights are d_out x d_in and multiply as x @ W.T: from_linear takes that layout.
constexpr auto sa_v2 = [] {
  sa::torch_generator gen{789};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);  // matrix<float, 2, 3>
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  return sa::self_attention<float, 3, 2>::from_linear(W_query, W_key, W_value);
}();
constexpr auto context_v2 = sa_v2(inputs);
// [/snippet]
void print_v2() { std::cout << context_v2 << '\n'; }

// [snippet:exercise]
// Exercise 3.1: v1 given v2's weights computes v2's output. sa_v2 keeps them in the x @ W layout
// already (from_linear transposed them), so they go straight into v1's constructor.
constexpr sa::self_attention<float, 3, 2> v1_with_v2_weights{sa_v2.W_query, sa_v2.W_key, sa_v2.W_value};
static_assert(v1_with_v2_weights(inputs) == context_v2);
// [/snippet]

int main(int argc, char** argv) {
  const tutorial_section sections[] = {{"token_2", print_token_2}, {"v1", print_v1}, {"v2", print_v2}};
  return run_sections(argc, argv, sections);
}

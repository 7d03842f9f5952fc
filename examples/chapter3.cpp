// SPDX-License-Identifier: BSL-1.0
// The chapter "Coding attention mechanisms", step by step: every tensor below is computed at
// compile time (each is a constexpr, most with a static_assert) and printed as PyTorch prints it.
// The weights come from the chapter's seeds through a torch-compatible generator: none is copied.
#include <iostream>

#include <static_attention/core/random.hpp>
#include <static_attention/io/print.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

// "Your journey starts with one step": 6 tokens x 3 dimensions.
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f},   // Your     (x^1)
                                         {0.55f, 0.87f, 0.66f},   // journey  (x^2)
                                         {0.57f, 0.85f, 0.64f},   // starts   (x^3)
                                         {0.22f, 0.58f, 0.33f},   // with     (x^4)
                                         {0.77f, 0.25f, 0.10f},   // one      (x^5)
                                         {0.05f, 0.80f, 0.55f}};  // step     (x^6)

// True when the row agrees with the 4-decimal values the chapter prints.
template <class T, std::size_t C>
constexpr bool prints_as(const sa::matrix<T, 1, C>& row, const sa::matrix<T, 1, C>& printed) {
  return sa::approx_equal(row, printed, T(5e-5));
}

// --- 3.3 Simplified attention ------------------------------------------------------------
constexpr auto attn_scores = sa::matmul(inputs, sa::transpose(inputs));  // 6 x 6
constexpr auto attn_weights = sa::softmax(attn_scores);                  // rows sum to 1
constexpr auto all_context_vecs = sa::matmul(attn_weights, inputs);      // 6 x 3
constexpr auto z2 = sa::context_vector(inputs, 1);                       // per-token route
static_assert(sa::approx_equal(sa::row(all_context_vecs, 1), z2, 1e-6f), "a matrix product moves no row");
static_assert(prints_as(z2, {{0.4419f, 0.6515f, 0.5683f}}));
static_assert(sa::approx_equal(sa::sum(attn_weights), sa::ones<float, 6, 1>(), 1e-6f));

// --- 3.4 Self-attention with trainable weights ---------------------------------------------
// SelfAttention_v1: torch.manual_seed(123); three nn.Parameter(torch.rand(d_in, d_out)).
constexpr auto sa_v1 = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::rand<float, 3, 2>(gen);
  const auto W_key = sa::rand<float, 3, 2>(gen);
  const auto W_value = sa::rand<float, 3, 2>(gen);
  return sa::self_attention<float, 3, 2>{W_query, W_key, W_value};
}();
constexpr auto ctx_v1 = sa_v1(inputs);
static_assert(prints_as(sa::row(ctx_v1, 0), {{0.2996f, 0.8053f}}));

// SelfAttention_v2: torch.manual_seed(789); three nn.Linear(d_in, d_out, bias=False).
constexpr auto sa_v2 = [] {
  sa::torch_generator gen{789};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  return sa::self_attention<float, 3, 2>::from_linear(W_query, W_key, W_value);
}();
constexpr auto ctx_v2 = sa_v2(inputs);
static_assert(prints_as(sa::row(ctx_v2, 0), {{-0.0739f, 0.0713f}}));

// --- 3.5 Causal attention -------------------------------------------------------------------
// The v2 weights, with the future masked to -inf before the softmax.
constexpr auto causal_v2 = sa::causal_attention<float, 3, 2>{sa_v2.W_query, sa_v2.W_key, sa_v2.W_value};
constexpr auto masked_weights = causal_v2.attention_weights(inputs);
static_assert(masked_weights(0, 1) == 0.0f && masked_weights(4, 5) == 0.0f, "the mask hides the future");
static_assert(prints_as(sa::row(masked_weights, 1), {{0.5517f, 0.4483f, 0.0f, 0.0f, 0.0f, 0.0f}}));

// CausalAttention(d_in, d_out, context_length=6, dropout=0.0) after torch.manual_seed(123), on a batch.
constexpr auto batch = sa::stack(inputs, inputs);  // 2 x 6 x 3
constexpr auto ca = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  return sa::causal_attention<float, 3, 2, 6>::from_linear(W_query, W_key, W_value);
}();
constexpr auto causal_context_vecs = ca(batch);  // 2 x 6 x 2
static_assert(prints_as(sa::row(causal_context_vecs[0], 0), {{-0.4519f, 0.2216f}}));

// --- 3.6 Multi-head attention -----------------------------------------------------------------
// MultiHeadAttentionWrapper(d_in, d_out=2, 6, 0.0, num_heads=2) after torch.manual_seed(123).
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
constexpr auto wrapper_context_vecs = mha_wrapper(batch);  // 2 x 6 x 4
static_assert(prints_as(sa::row(wrapper_context_vecs[0], 0), {{-0.4519f, 0.2216f, 0.4772f, 0.1063f}}));

// MultiHeadAttention(d_in, d_out=2, 6, 0.0, num_heads=2) after torch.manual_seed(123).
constexpr auto mha = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  const auto out_proj = sa::linear<float, 2, 2>(gen);
  return sa::multi_head_attention<float, 3, 2, 2, 6>::from_linear(W_query, W_key, W_value, out_proj.weight,
                                                                  out_proj.bias);
}();
constexpr auto mha_context_vecs = mha(batch);  // 2 x 6 x 2
static_assert(prints_as(sa::row(mha_context_vecs[0], 0), {{0.3190f, 0.4858f}}));

int main() {
  std::cout << "3.3 simplified attention\n"
            << "attn_scores =\n"
            << attn_scores << "\n"
            << "attn_weights =\n"
            << attn_weights << "\n"
            << "all_context_vecs =\n"
            << all_context_vecs << "\n"
            << "z2 (per-token route) =\n"
            << z2 << "\n\n"
            << "3.4 self-attention, SelfAttention_v1 (seed 123) =\n"
            << ctx_v1 << "\n"
            << "SelfAttention_v2 (seed 789) =\n"
            << ctx_v2 << "\n\n"
            << "3.5 causal attention weights =\n"
            << masked_weights << "\n"
            << "CausalAttention (seed 123) on a batch of 2 =\n"
            << causal_context_vecs << "\n\n"
            << "3.6 MultiHeadAttentionWrapper (seed 123) =\n"
            << wrapper_context_vecs << "\n"
            << "MultiHeadAttention (seed 123) =\n"
            << mha_context_vecs << "\n"
            << "\nEvery tensor above was computed and checked by the compiler (static_assert).\n";
}

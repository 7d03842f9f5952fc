// SPDX-License-Identifier: BSL-1.0
// Every stage of the chapter against PyTorch (float32, within 1e-6), with the weights PyTorch
// drew for the chapter's seeds, both in static_assert and at run time.
#include <static_attention/static_attention.hpp>

#include "chapter_reference.hpp"
#include "constexpr_check.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::chapter;
using test_support::to_matrix;
using test_support::to_tensor;

namespace {

constexpr float tol = 1e-6f;
constexpr auto inputs = to_matrix<float, 6, 3>(ref::x);
constexpr auto batch = sa::stack(inputs, inputs);

constexpr bool self_attention_v1() {
  // x @ W layout: three torch.rand(3, 2) parameters.
  const sa::self_attention<float, 3, 2> sa_v1{to_matrix<float, 3, 2>(ref::v1_w_query),
                                              to_matrix<float, 3, 2>(ref::v1_w_key),
                                              to_matrix<float, 3, 2>(ref::v1_w_value)};
  return sa::approx_equal(sa_v1.attention_weights(inputs), to_matrix<float, 6, 6>(ref::v1_attn_weights), tol) &&
         sa::approx_equal(sa_v1(inputs), to_matrix<float, 6, 2>(ref::v1_context), tol);
}

constexpr auto sa_v2 = sa::self_attention<float, 3, 2>::from_linear(to_matrix<float, 2, 3>(ref::v2_w_query),
                                                                    to_matrix<float, 2, 3>(ref::v2_w_key),
                                                                    to_matrix<float, 2, 3>(ref::v2_w_value));

constexpr bool self_attention_v2() {
  return sa::approx_equal(sa_v2.attention_weights(inputs), to_matrix<float, 6, 6>(ref::v2_attn_weights), tol) &&
         sa::approx_equal(sa_v2(inputs), to_matrix<float, 6, 2>(ref::v2_context), tol);
}

constexpr bool causal_with_v2_weights() {
  const sa::causal_attention<float, 3, 2> ca{sa_v2.W_query, sa_v2.W_key, sa_v2.W_value};
  return sa::approx_equal(ca.attention_weights(inputs), to_matrix<float, 6, 6>(ref::causal_attn_weights), tol) &&
         sa::approx_equal(ca(inputs), to_matrix<float, 6, 2>(ref::causal_context), tol) &&
         // the chapter's other route: softmax, zero the future, renormalise
         sa::approx_equal(ca.attention_weights(inputs), to_matrix<float, 6, 6>(ref::simple_mask_attn_weights), tol);
}

constexpr bool causal_module_on_a_batch() {
  const auto ca = sa::causal_attention<float, 3, 2, 6>::from_linear(to_matrix<float, 2, 3>(ref::causal_module_w_query),
                                                                    to_matrix<float, 2, 3>(ref::causal_module_w_key),
                                                                    to_matrix<float, 2, 3>(ref::causal_module_w_value));
  return sa::approx_equal(ca(batch), to_tensor<float, 2, 6, 2>(ref::causal_module_context), tol);
}

constexpr auto wrapper_head(const double (&wq)[6], const double (&wk)[6], const double (&wv)[6]) {
  return sa::causal_attention<float, 3, 2, 6>::from_linear(to_matrix<float, 2, 3>(wq), to_matrix<float, 2, 3>(wk),
                                                           to_matrix<float, 2, 3>(wv));
}

constexpr bool multi_head_attention_wrapper() {
  const auto wrapper = sa::make_multi_head_attention_wrapper(
      wrapper_head(ref::wrapper_head0_w_query, ref::wrapper_head0_w_key, ref::wrapper_head0_w_value),
      wrapper_head(ref::wrapper_head1_w_query, ref::wrapper_head1_w_key, ref::wrapper_head1_w_value));
  return sa::approx_equal(wrapper(batch), to_tensor<float, 2, 6, 4>(ref::wrapper_context), tol);
}

constexpr bool multi_head_attention() {
  const auto mha = sa::multi_head_attention<float, 3, 2, 2, 6>::from_linear(
      to_matrix<float, 2, 3>(ref::mha_w_query), to_matrix<float, 2, 3>(ref::mha_w_key),
      to_matrix<float, 2, 3>(ref::mha_w_value), to_matrix<float, 2, 2>(ref::mha_out_proj_weight),
      to_matrix<float, 1, 2>(ref::mha_out_proj_bias));
  return sa::approx_equal(mha(batch), to_tensor<float, 2, 6, 2>(ref::mha_context), tol);
}

}  // namespace

TEST_CASE("SelfAttention_v1 (x @ W weights, seed 123) equals torch") { SA_CHECK_BOTH(self_attention_v1()); }
TEST_CASE("SelfAttention_v2 (nn.Linear weights, seed 789) equals torch") { SA_CHECK_BOTH(self_attention_v2()); }
TEST_CASE("causal weights and context equal torch, by both of the chapter's routes") {
  SA_CHECK_BOTH(causal_with_v2_weights());
}
TEST_CASE("CausalAttention on a batch equals torch") { SA_CHECK_BOTH(causal_module_on_a_batch()); }
TEST_CASE("MultiHeadAttentionWrapper equals torch") { SA_CHECK_BOTH(multi_head_attention_wrapper()); }
TEST_CASE("MultiHeadAttention equals torch") { SA_CHECK_BOTH(multi_head_attention()); }

// SPDX-License-Identifier: BSL-1.0
// Simplified attention: the chapter's debugging technique. Every row of the batched context
// vectors equals the per-token vector z_i = sum_j alpha_ij x_j, asserted for every row.
#include <static_attention/nn/simplified_attention.hpp>

#include "chapter_reference.hpp"
#include "constexpr_check.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::chapter;
using test_support::to_matrix;

namespace {

constexpr auto inputs = to_matrix<float, 6, 3>(ref::x);

template <class T, std::size_t N, std::size_t D>
constexpr bool every_row_matches_per_token_route(const sa::matrix<T, N, D>& x, T tol) {
  const auto all = sa::context_vectors(x);
  for (std::size_t i = 0; i < N; ++i)
    if (!sa::approx_equal(sa::row(all, i), sa::context_vector(x, i), tol)) return false;
  return true;
}

constexpr bool helpers_are_the_chapter_steps() {
  const auto scores = sa::attention_scores(inputs);
  const auto weights = sa::attention_weights(inputs);
  return scores == sa::matmul(inputs, sa::transpose(inputs)) && weights == sa::softmax(scores) &&
         sa::context_vectors(inputs) == sa::matmul(weights, inputs);
}

constexpr bool matches_torch() {
  return sa::approx_equal(sa::attention_scores(inputs), to_matrix<float, 6, 6>(ref::simplified_attn_scores), 1e-6f) &&
         sa::approx_equal(sa::attention_weights(inputs), to_matrix<float, 6, 6>(ref::simplified_attn_weights), 1e-6f) &&
         sa::approx_equal(sa::context_vectors(inputs), to_matrix<float, 6, 3>(ref::simplified_context_vecs), 1e-6f);
}

constexpr bool batched_is_per_item() {
  const auto shifted = inputs * 0.5f;
  const auto out = sa::context_vectors(sa::stack(inputs, shifted));
  // Within rounding, not bit for bit: built with -march=native, GCC contracts multiply-adds
  // differently in the two call contexts.
  return sa::approx_equal(out[0], sa::context_vectors(inputs), 1e-7f) &&
         sa::approx_equal(out[1], sa::context_vectors(shifted), 1e-7f);
}

}  // namespace

TEST_CASE("row i of the batched context vectors is z_i of the per-token route, for every i") {
  SA_CHECK_BOTH(every_row_matches_per_token_route(inputs, 1e-6f));
  SA_CHECK_BOTH(every_row_matches_per_token_route(to_matrix<double, 6, 3>(ref::x), 1e-15));
}
TEST_CASE("attention_scores, attention_weights and context_vectors are the chapter's steps") {
  SA_CHECK_BOTH(helpers_are_the_chapter_steps());
}
TEST_CASE("simplified attention equals torch within 1e-6") { SA_CHECK_BOTH(matches_torch()); }
TEST_CASE("a batch is attended item by item") { SA_CHECK_BOTH(batched_is_per_item()); }

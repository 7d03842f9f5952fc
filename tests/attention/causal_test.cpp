// SPDX-License-Identifier: BSL-1.0
// Causal attention: the mask hides the future, the two routes of the chapter agree, and the
// context length bounds the sequence. (Values against torch are in chapter_test.cpp.)
#include <limits>

#include <static_attention/core/masking.hpp>
#include <static_attention/nn/causal_attention.hpp>

#include "chapter_reference.hpp"
#include "constexpr_check.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::chapter;
using test_support::to_matrix;

namespace {

constexpr auto inputs = to_matrix<double, 6, 3>(ref::x);
constexpr auto ca = sa::causal_attention<double, 3, 2, 6>::from_linear(to_matrix<double, 2, 3>(ref::v2_w_query),
                                                                       to_matrix<double, 2, 3>(ref::v2_w_key),
                                                                       to_matrix<double, 2, 3>(ref::v2_w_value));

constexpr bool weights_above_the_diagonal_are_exactly_zero() {
  const auto w = ca.attention_weights(inputs);
  for (std::size_t i = 0; i < 6; ++i) {
    double total = 0;
    for (std::size_t j = 0; j < 6; ++j) {
      if (j > i && w(i, j) != 0.0) return false;
      if (j <= i && !(w(i, j) > 0.0)) return false;
      total += w(i, j);
    }
    if (!(total > 1 - 1e-15 && total < 1 + 1e-15)) return false;
  }
  return true;
}

// The chapter's second route: softmax over all scores, zero the future, renormalise the rows.
constexpr bool masking_equals_zeroing_then_renormalising() {
  const auto queries = sa::matmul(inputs, ca.W_query);
  const auto keys = sa::matmul(inputs, ca.W_key);
  const auto unmasked = sa::softmax(sa::matmul(queries, sa::transpose(keys)) / sa::sqrt(2.0));
  const auto zeroed = sa::tril(unmasked);
  auto renormalised = zeroed;
  const auto sums = sa::sum(zeroed);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j) renormalised(i, j) /= sums(i, 0);
  return sa::approx_equal(renormalised, ca.attention_weights(inputs), 1e-15);
}

// Changing a later token changes no earlier output: token i sees only tokens 0..i.
constexpr bool the_future_cannot_leak() {
  const auto before = ca(inputs);
  for (std::size_t later = 1; later < 6; ++later) {
    auto changed = inputs;
    for (std::size_t k = 0; k < 3; ++k) changed(later, k) += 10.0 * static_cast<double>(k + 1);
    const auto after = ca(changed);
    for (std::size_t i = 0; i < later; ++i)
      if (!(sa::row(after, i) == sa::row(before, i))) return false;
    if (sa::row(after, later) == sa::row(before, later)) return false;
  }
  return true;
}

constexpr bool the_first_token_attends_only_to_itself() {
  // Its context vector is its own value vector.
  return sa::approx_equal(sa::row(ca(inputs), 0), sa::row(sa::matmul(inputs, ca.W_value), 0), 1e-15);
}

constexpr bool mask_vocabulary() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const sa::matrix<double, 3, 3> scores{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  return sa::causal_mask<3>() ==
             sa::matrix<bool, 3, 3>{{false, true, true}, {false, false, true}, {false, false, false}} &&
         sa::mask_future(scores) == sa::matrix<double, 3, 3>{{1, -inf, -inf}, {4, 5, -inf}, {7, 8, 9}} &&
         sa::tril(scores) == sa::matrix<double, 3, 3>{{1, 0, 0}, {4, 5, 0}, {7, 8, 9}} &&
         sa::masked_fill(scores, sa::causal_mask<3>(), 0.0) == sa::tril(scores);
}

constexpr bool shorter_sequences_fit_the_context_length() {
  // Any N up to context_length; the first rows do not depend on how many tokens follow.
  sa::matrix<double, 3, 3> first_three;
  for (std::size_t k = 0; k < 9; ++k) first_three.elems[k] = inputs.elems[k];
  const auto three = ca(first_three);
  const auto six = ca(inputs);
  for (std::size_t i = 0; i < 3; ++i)
    if (!sa::approx_equal(sa::row(three, i), sa::row(six, i), 1e-15)) return false;
  return true;
}

}  // namespace

TEST_CASE("masked weights: exactly 0 above the diagonal, positive below, rows sum to 1") {
  SA_CHECK_BOTH(weights_above_the_diagonal_are_exactly_zero());
}
TEST_CASE("-inf before softmax equals zeroing then renormalising") {
  SA_CHECK_BOTH(masking_equals_zeroing_then_renormalising());
}
TEST_CASE("changing a later token changes no earlier context vector") { SA_CHECK_BOTH(the_future_cannot_leak()); }
TEST_CASE("the first token's context is its own value") { SA_CHECK_BOTH(the_first_token_attends_only_to_itself()); }
TEST_CASE("causal_mask, mask_future, tril and masked_fill") { SA_CHECK_BOTH(mask_vocabulary()); }
TEST_CASE("sequences up to the context length; prefixes agree") {
  SA_CHECK_BOTH(shorter_sequences_fit_the_context_length());
}

// SPDX-License-Identifier: BSL-1.0
// softmax_naive, the chapter's exp(x) / sum(exp(x)): right on small scores, and where it overflows.
#include <limits>
#include <type_traits>

#include <static_attention/core/softmax.hpp>

#include "constexpr_check.hpp"
#include "reference_support.hpp"
#include "softmax_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::softmax;

namespace {

constexpr bool agrees_with_numpy_on_small_scores() {
  const auto x = test_support::to_matrix<double, ref::ordinary_rows, ref::ordinary_cols>(ref::ordinary_x);
  const auto expected = test_support::to_matrix<double, ref::ordinary_rows, ref::ordinary_cols>(ref::ordinary_softmax);
  return sa::approx_equal(sa::softmax_naive(x), expected, 1e-15);
}

// Below float's exp overflow (88.72) the naive form still works ...
constexpr bool fine_just_below_overflow() {
  const auto y = sa::softmax_naive(sa::matrix<float, 1, 2>{{88.7f, 0.0f}});
  return y(0, 0) == 1.0f && y(0, 1) > 0.0f && y(0, 1) < 1e-38f;
}

// ... so it can be evaluated by the compiler; just above, exp is +inf and inf / inf is not a
// constant expression. The detector asks the compiler whether it can evaluate the call.
// (Scores in tenths, as int: Clang 16 takes no floating-point template arguments.)
template <int Tenths>
concept naive_is_constant = requires {
  typename std::bool_constant<(sa::softmax_naive(sa::matrix<float, 1, 2>{{Tenths / 10.0f, 0.0f}})(0, 0), true)>;
};

}  // namespace

TEST_CASE("softmax_naive equals numpy on ordinary scores") { SA_CHECK_BOTH(agrees_with_numpy_on_small_scores()); }
TEST_CASE("softmax_naive works up to float's exp overflow") { SA_CHECK_BOTH(fine_just_below_overflow()); }

TEST_CASE("softmax_naive overflows above 88.72 (float): NaN at run time, no constant at compile time") {
  static_assert(naive_is_constant<887>);
  static_assert(!naive_is_constant<888>);
  volatile float score = 88.8f;  // at run time, not folded
  const auto y = sa::softmax_naive(sa::matrix<float, 1, 2>{{score, 0.0f}});
  CHECK(y(0, 0) != y(0, 0));  // NaN: inf / inf
  const auto stable = sa::softmax(sa::matrix<float, 1, 2>{{score, 0.0f}});
  CHECK(stable(0, 0) == 1.0f);
  CHECK(stable(0, 1) > 0.0f);  // e^-88.8, a subnormal float, not lost
  CHECK(stable(0, 1) < 1e-38f);
}

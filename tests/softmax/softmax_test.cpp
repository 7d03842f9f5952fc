// SPDX-License-Identifier: BSL-1.0
// softmax: agreement with numpy, stability at extreme scores, exact zeros under the mask,
// the documented result of a fully masked row, and NaN propagation.
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <static_attention/core/softmax.hpp>

#include "constexpr_check.hpp"
#include "reference_support.hpp"
#include "softmax_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::softmax;
using test_support::to_matrix;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

template <class T, std::size_t R, std::size_t C>
constexpr bool matches_numpy(const double (&x)[R * C], const double (&expected)[R * C], T tol) {
  return sa::approx_equal(sa::softmax(to_matrix<T, R, C>(x)), to_matrix<T, R, C>(expected), tol);
}

constexpr bool ordinary_scores_match_numpy() {
  return matches_numpy<double, ref::ordinary_rows, ref::ordinary_cols>(ref::ordinary_x, ref::ordinary_softmax, 1e-15) &&
         matches_numpy<float, ref::ordinary_rows, ref::ordinary_cols>(ref::ordinary_x, ref::ordinary_softmax_f32,
                                                                      1e-7f);
}

constexpr bool extreme_scores_neither_overflow_nor_nan() {
  const auto y = sa::softmax(to_matrix<double, ref::extreme_rows, ref::extreme_cols>(ref::extreme_x));
  for (double v : y)
    if (!(v >= 0.0 && v <= 1.0)) return false;  // false for NaN too
  return matches_numpy<double, ref::extreme_rows, ref::extreme_cols>(ref::extreme_x, ref::extreme_softmax, 1e-15) &&
         matches_numpy<float, ref::extreme_rows, ref::extreme_cols>(ref::extreme_x, ref::extreme_softmax_f32, 1e-7f);
}

constexpr bool masked_entries_are_exactly_zero() {
  const auto y = sa::softmax(to_matrix<double, ref::masked_rows, ref::masked_cols>(ref::masked_x));
  for (std::size_t k = 0; k < ref::masked_rows * ref::masked_cols; ++k)
    if (ref::masked_x[k] == -inf && y.elems[k] != 0.0) return false;
  return y(0, 0) == 1.0 &&
         matches_numpy<double, ref::masked_rows, ref::masked_cols>(ref::masked_x, ref::masked_softmax, 1e-15);
}

// Each row sums to 1 within a few ulp (4 ulp of 1.0 here).
template <class T>
constexpr bool rows_sum_to_one() {
  const auto y = sa::softmax(to_matrix<T, ref::ordinary_rows, ref::ordinary_cols>(ref::ordinary_x));
  const T ulp = std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < ref::ordinary_rows; ++i) {
    T total{};
    for (std::size_t j = 0; j < ref::ordinary_cols; ++j) total += y(i, j);
    if (!(total - T{1} <= 4 * ulp && T{1} - total <= 4 * ulp)) return false;
  }
  return true;
}

constexpr bool fully_masked_row_gives_zeros() {
  const sa::matrix<float, 2, 3> scores{
      {-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
       -std::numeric_limits<float>::infinity()},
      {1.0f, 1.0f, 1.0f}};
  const auto y = sa::softmax(scores);
  return sa::row(y, 0) == sa::zeros<float, 1, 3>() &&
         sa::approx_equal(sa::row(y, 1), sa::full<float, 1, 3>(1.0f / 3), 1e-7f);
}

constexpr bool nan_or_plus_inf_gives_a_nan_row() {
  const sa::matrix<double, 2, 2> scores{{std::numeric_limits<double>::quiet_NaN(), 0.0}, {inf, 0.0}};
  const auto y = sa::softmax(scores);
  for (double v : y)
    if (v == v) return false;
  return true;
}

constexpr bool tensor_softmax_is_per_row() {
  const auto a = to_matrix<double, ref::masked_rows, ref::masked_cols>(ref::masked_x);
  const auto b = to_matrix<double, ref::masked_rows, ref::masked_cols>(ref::masked_softmax);
  const auto t = sa::softmax(sa::stack(a, b));
  return t[0] == sa::softmax(a) && t[1] == sa::softmax(b);
}

}  // namespace

TEST_CASE("softmax equals numpy on ordinary scores (double 1e-15, float 1e-7)") {
  SA_CHECK_BOTH(ordinary_scores_match_numpy());
}
TEST_CASE("scores of +-1e4 neither overflow nor give NaN") { SA_CHECK_BOTH(extreme_scores_neither_overflow_nor_nan()); }
TEST_CASE("entries at -inf get exactly 0") { SA_CHECK_BOTH(masked_entries_are_exactly_zero()); }
TEST_CASE("every row sums to 1 within 4 ulp") {
  SA_CHECK_BOTH(rows_sum_to_one<float>());
  SA_CHECK_BOTH(rows_sum_to_one<double>());
}
TEST_CASE("a fully masked row gives zeros (documented; PyTorch gives NaN)") {
  SA_CHECK_BOTH(fully_masked_row_gives_zeros());
}
TEST_CASE("a row holding NaN or +inf gives NaN, as in PyTorch") { SA_CHECK_BOTH(nan_or_plus_inf_gives_a_nan_row()); }
TEST_CASE("tensor softmax acts on every row of every batch item") { SA_CHECK_BOTH(tensor_softmax_is_per_row()); }

namespace {
// {MAX, -MAX, 0}: x - max overflows to -inf for the second entry (and is -MAX for the third).
// torch.softmax gives [1, 0, 0]; GCC's constant evaluator used to refuse the overflowing
// subtraction, which Clang's accepted. Now both accept it, with the run time's bits.
template <class T>
constexpr bool largest_finite_scores_give_one_and_zeros() {
  constexpr T big = std::numeric_limits<T>::max();
  const sa::matrix<T, 2, 3> x{{big, -big, T{0}}, {-big, T{0}, big}};
  const auto y = sa::softmax(x);
  const sa::matrix<T, 2, 3> expected{{T{1}, T{0}, T{0}}, {T{0}, T{0}, T{1}}};
  if (!(y == expected)) return false;
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  for (const T v : y)
    if (v == T{0} && std::bit_cast<bits>(v) != 0) return false;  // +0, as exp(-inf) gives at run time
  // The same in a batch, and where -MAX is the row's maximum's neighbour: [-MAX, -MAX] is uniform.
  const auto batched = sa::softmax(sa::stack(x, x));
  const auto uniform = sa::softmax(sa::matrix<T, 1, 2>{{-big, -big}});
  return batched[0] == expected && batched[1] == expected && uniform == sa::matrix<T, 1, 2>{{T{0.5}, T{0.5}}};
}
}  // namespace

TEST_CASE("{MAX, -MAX, 0} gives [1, 0, 0] at compile time on both compilers, and at run time") {
  SA_CHECK_BOTH(largest_finite_scores_give_one_and_zeros<float>());
  SA_CHECK_BOTH(largest_finite_scores_give_one_and_zeros<double>());
}

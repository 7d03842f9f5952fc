// SPDX-License-Identifier: BSL-1.0
// layer_norm against torch (the book's LayerNorm, eps 1e-5, biased variance): float within 1e-6,
// double within 1e-12, at compile time and at run time; and the book's check that each
// normalised row has mean 0 and variance 1.
#include <static_attention/nn/layer_norm.hpp>

#include "constexpr_check.hpp"
#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;
using test_support::to_matrix;

namespace {

template <class T>
constexpr bool matches_torch(const double (&plain)[15], const double (&affine)[15], double tol) {
  const auto x = to_matrix<T, 3, 5>(ref::layer_norm_x);
  const sa::layer_norm<T, 5> unit{sa::ones<T, 1, 5>(), sa::zeros<T, 1, 5>()};
  const sa::layer_norm<T, 5> scaled{to_matrix<T, 1, 5>(ref::layer_norm_scale),
                                    to_matrix<T, 1, 5>(ref::layer_norm_shift)};
  return gpt_test::close(unit(x), to_matrix<T, 3, 5>(plain), tol) &&
         gpt_test::close(scaled(x), to_matrix<T, 3, 5>(affine), tol);
}

// The book's check: mean 0 and variance 1 per row after normalisation.
constexpr bool rows_have_mean_0_variance_1() {
  const sa::matrix<double, 2, 5> x{{0.22, 0.34, 0.0, 0.22, 0.0}, {0.21, 0.0, 0.0, 0.57, 0.46}};
  const sa::layer_norm<double, 5> ln{sa::ones<double, 1, 5>(), sa::zeros<double, 1, 5>()};
  const auto y = ln(x);
  for (std::size_t i = 0; i < 2; ++i) {
    double mean = 0, var = 0;
    for (std::size_t j = 0; j < 5; ++j) mean += y(i, j) / 5;
    for (std::size_t j = 0; j < 5; ++j) var += (y(i, j) - mean) * (y(i, j) - mean) / 5;
    // var is 1 - eps / (var_x + eps): within 1e-3 for these rows, as the book prints 1.0000.
    if (!(mean < 1e-12 && mean > -1e-12 && var > 0.999 && var < 1.0)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("layer_norm: torch's LayerNorm, float and double") {
  SA_CHECK_BOTH(matches_torch<float>(ref::layer_norm_out_f32, ref::layer_norm_affine_out_f32, 1e-6));
  SA_CHECK_BOTH(matches_torch<double>(ref::layer_norm_out_f64, ref::layer_norm_affine_out_f64, 1e-12));
}

TEST_CASE("layer_norm: each row has mean 0 and variance 1") { SA_CHECK_BOTH(rows_have_mean_0_variance_1()); }

TEST_CASE("layer_norm: a batch is normalised item by item") {
  constexpr auto x = to_matrix<float, 3, 5>(ref::layer_norm_x);
  constexpr sa::layer_norm<float, 5> ln{sa::ones<float, 1, 5>(), sa::zeros<float, 1, 5>()};
  constexpr auto batch = ln(sa::stack(x, x));
  static_assert(batch[0] == ln(x) && batch[1] == ln(x));
  CHECK(ln(sa::stack(x, x))[1] == ln(x));
}

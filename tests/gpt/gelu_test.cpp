// SPDX-License-Identifier: BSL-1.0
// gelu (the book's tanh approximation) against torch on [-6, 6] and beyond: float within 1e-6,
// double within 1e-12, at both times; and against ReLU, as the book compares them.
#include <static_attention/nn/gelu.hpp>

#include "constexpr_check.hpp"
#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;
using test_support::to_matrix;

namespace {

template <class T>
constexpr bool matches_torch(const double (&expected)[46], double tol) {
  return gpt_test::close(sa::gelu(to_matrix<T, 1, 46>(ref::gelu_x)), to_matrix<T, 1, 46>(expected), tol);
}

// GELU is smooth where ReLU has a kink: negative inputs give small negative outputs (minimum
// about -0.17 near x = -0.75), large positive ones give x, and gelu(0) = 0.
constexpr bool compares_with_relu() {
  const sa::matrix<double, 1, 5> x{{-3.0, -0.75, 0.0, 1.0, 8.0}};
  const auto g = sa::gelu(x);
  const auto r = sa::relu(x);
  return g(0, 0) < 0 && g(0, 0) > -0.01 && g(0, 1) < -0.16 && g(0, 1) > -0.18 && g(0, 2) == 0.0 && g(0, 3) > 0.84 &&
         g(0, 3) < 0.85 && g(0, 4) > 7.999999 && r(0, 0) == 0.0 && r(0, 1) == 0.0 && r(0, 4) == 8.0;
}

}  // namespace

TEST_CASE("gelu: torch's tanh approximation, float and double") {
  SA_CHECK_BOTH(matches_torch<float>(ref::gelu_out_f32, 1e-6));
  SA_CHECK_BOTH(matches_torch<double>(ref::gelu_out_f64, 1e-12));
}

TEST_CASE("gelu against relu") { SA_CHECK_BOTH(compares_with_relu()); }

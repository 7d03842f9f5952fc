// SPDX-License-Identifier: BSL-1.0
// feed_forward against torch's FeedForward (Linear, GELU, Linear), weights initialised by
// torch.manual_seed(7): from the reference weights, and from init_like_torch with the same seed.
#include <static_attention/nn/feed_forward.hpp>
#include <static_attention/nn/torch_init.hpp>

#include "constexpr_check.hpp"
#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;
using test_support::to_matrix;

namespace {

template <class T>
constexpr bool matches_torch(const double (&w0)[256], const double (&b0)[32], const double (&w2)[256],
                             const double (&b2)[8], const double (&expected)[24], double tol) {
  const sa::feed_forward<T, 8, 32> ff{
      sa::linear_layer<T, 8, 32>::from_linear(to_matrix<T, 32, 8>(w0), to_matrix<T, 1, 32>(b0)),
      sa::linear_layer<T, 32, 8>::from_linear(to_matrix<T, 8, 32>(w2), to_matrix<T, 1, 8>(b2))};
  // init_like_torch from the same seed draws the same weights.
  sa::feed_forward<T, 8, 32> drawn{};
  sa::torch_generator gen{7};
  sa::init_like_torch(drawn, gen);
  const auto x = to_matrix<T, 3, 8>(ref::feed_forward_x);
  return gpt_test::close(ff(x), to_matrix<T, 3, 8>(expected), tol) && drawn.expand.weight == ff.expand.weight &&
         drawn.expand.bias == ff.expand.bias && drawn.project.weight == ff.project.weight &&
         drawn.project.bias == ff.project.bias;
}

}  // namespace

TEST_CASE("feed_forward: torch's FeedForward, float and double") {
  SA_CHECK_BOTH(matches_torch<float>(ref::feed_forward_f32_layers_0_weight, ref::feed_forward_f32_layers_0_bias,
                                     ref::feed_forward_f32_layers_2_weight, ref::feed_forward_f32_layers_2_bias,
                                     ref::feed_forward_out_f32, 1e-6));
  SA_CHECK_BOTH(matches_torch<double>(ref::feed_forward_f64_layers_0_weight, ref::feed_forward_f64_layers_0_bias,
                                      ref::feed_forward_f64_layers_2_weight, ref::feed_forward_f64_layers_2_bias,
                                      ref::feed_forward_out_f64, 1e-12));
}

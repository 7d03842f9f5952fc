// SPDX-License-Identifier: BSL-1.0
// Dropout on attention weights: deterministic from the seed, scaled by 1/(1-p), off in
// evaluation mode, and never reaching the values a causal mask removed.
#include <static_attention/core/random.hpp>
#include <static_attention/nn/causal_attention.hpp>
#include <static_attention/nn/dropout.hpp>

#include "constexpr_check.hpp"
#include "training_reference.hpp"

namespace sa = static_attention;

namespace {

constexpr auto ones = sa::ones<float, 6, 6>();

constexpr bool same_seed_same_mask_other_seed_other_mask() {
  sa::torch_generator a{123}, b{123}, c{124};
  const auto da = sa::dropout(ones, 0.5f, a);
  return da == sa::dropout(ones, 0.5f, b) && !(da == sa::dropout(ones, 0.5f, c));
}

constexpr bool kept_values_are_scaled_by_one_over_keep() {
  sa::torch_generator gen{7};
  const auto d = sa::dropout(ones, 0.2f, gen);
  for (float v : d)
    if (v != 0.0f && v != 1.0f / 0.8f) return false;
  return true;
}

// Over 64 x 64 draws the kept fraction is near 1 - p (binomial sd ~0.0078 at p = 0.5).
constexpr bool keeps_about_one_minus_p() {
  sa::torch_generator gen{2024};
  const auto d = sa::dropout(sa::ones<double, 64, 64>(), 0.5, gen);
  std::size_t kept = 0;
  for (double v : d) kept += v != 0.0 ? 1u : 0u;
  const double fraction = static_cast<double>(kept) / (64.0 * 64.0);
  return fraction > 0.46 && fraction < 0.54;
}

// The mask is torch 1.13's: nn.Dropout(0.3)(torch.ones(6, 6)) after torch.manual_seed(99), on
// the CPU without MKL (tests/reference/gen_training_reference.py).
constexpr bool mask_is_torchs() {
  sa::torch_generator gen{99};
  const auto d = sa::dropout(ones, 0.3f, gen);
  for (std::size_t k = 0; k < 36; ++k)
    if (d.elems[k] != static_cast<float>(reference::training::dropout_ones6x6_p03_seed99_out[k])) return false;
  return true;
}

constexpr bool p_zero_and_p_one() {
  sa::torch_generator gen{1};
  const auto before = gen;
  return sa::dropout(ones, 0.0f, gen) == ones && gen.random() == sa::torch_generator{before}.random() &&
         sa::dropout(ones, 1.0f, gen) == sa::zeros<float, 6, 6>();
}

constexpr auto ca = [] {
  sa::torch_generator gen{123};
  const auto wq = sa::linear_weight<float, 3, 2>(gen);
  const auto wk = sa::linear_weight<float, 3, 2>(gen);
  const auto wv = sa::linear_weight<float, 3, 2>(gen);
  return sa::causal_attention<float, 3, 2>::from_linear(wq, wk, wv, 0.5f);
}();
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};

constexpr bool modules_drop_only_in_training_mode() {
  const auto no_dropout = sa::causal_attention<float, 3, 2>{ca.W_query, ca.W_key, ca.W_value};
  sa::torch_generator gen{123}, again{123};
  const auto trained = ca(inputs, gen);
  // Training mode is dropout(weights) . values with the module's p and the caller's generator.
  const auto values = sa::matmul(inputs, ca.W_value);
  const auto expected = sa::matmul(sa::dropout(no_dropout.attention_weights(inputs), 0.5f, again), values);
  // approx_equal where two call contexts may contract multiply-adds differently (-march=native).
  return sa::approx_equal(ca(inputs), no_dropout(inputs), 1e-7f) && sa::approx_equal(trained, expected, 1e-7f) &&
         sa::max_abs_diff(trained, ca(inputs)) > 1e-3f;
}

}  // namespace

TEST_CASE("the same seed gives the same mask; another seed another") {
  SA_CHECK_BOTH(same_seed_same_mask_other_seed_other_mask());
}
TEST_CASE("kept values are scaled by 1/(1-p)") { SA_CHECK_BOTH(kept_values_are_scaled_by_one_over_keep()); }
TEST_CASE("about 1 - p of the values are kept") { SA_CHECK_BOTH(keeps_about_one_minus_p()); }
TEST_CASE("the mask is torch 1.13's nn.Dropout(0.3) mask after torch.manual_seed(99)") {
  SA_CHECK_BOTH(mask_is_torchs());
}
TEST_CASE("p = 0 draws nothing and changes nothing; p = 1 drops everything") { SA_CHECK_BOTH(p_zero_and_p_one()); }
TEST_CASE("modules apply dropout only in training mode, ca(x, gen)") {
  SA_CHECK_BOTH(modules_drop_only_in_training_mode());
}

// SPDX-License-Identifier: BSL-1.0
// nn.Linear's default initialisation (kaiming_uniform_ weight, then bias) against PyTorch 1.13.
#include <static_attention/core/random.hpp>

#include <cstdint>
#include <type_traits>

#include "constexpr_check.hpp"
#include "random_reference.hpp"
#include "reference_support.hpp"

namespace sa = static_attention;
namespace ref = reference::random;
using test_support::to_matrix;

namespace {

// linear<T, In, Out> equals nn.Linear(In, Out) after torch.manual_seed(seed), and so do
// linear_weight followed by linear_bias.
template <class T, std::size_t In, std::size_t Out>
constexpr bool linear_matches(std::uint64_t seed, const double (&weight)[Out * In], const double (&bias)[Out]) {
  sa::torch_generator gen{seed};
  const sa::linear_params<T, In, Out> p = sa::linear<T, In, Out>(gen);
  sa::torch_generator gen2{seed};
  const auto w = sa::linear_weight<T, In, Out>(gen2);
  const auto b = sa::linear_bias<T, In, Out>(gen2);
  return p.weight == to_matrix<T, Out, In>(weight) && p.bias == to_matrix<T, 1, Out>(bias) && w == p.weight &&
         b == p.bias;
}

#define SA_LINEAR_CASES(T, dt, seed)                                                                                 \
  (linear_matches<T, 3, 2>(seed, ref::linear_##dt##_##seed##_3x2_weight, ref::linear_##dt##_##seed##_3x2_bias) &&    \
   linear_matches<T, 1, 1>(seed, ref::linear_##dt##_##seed##_1x1_weight, ref::linear_##dt##_##seed##_1x1_bias) &&    \
   linear_matches<T, 2, 2>(seed, ref::linear_##dt##_##seed##_2x2_weight, ref::linear_##dt##_##seed##_2x2_bias) &&    \
   linear_matches<T, 7, 5>(seed, ref::linear_##dt##_##seed##_7x5_weight, ref::linear_##dt##_##seed##_7x5_bias) &&    \
   linear_matches<T, 5, 13>(seed, ref::linear_##dt##_##seed##_5x13_weight, ref::linear_##dt##_##seed##_5x13_bias) && \
   linear_matches<T, 64, 3>(seed, ref::linear_##dt##_##seed##_64x3_weight, ref::linear_##dt##_##seed##_64x3_bias))

constexpr bool float_linear_matches_torch() {
  return SA_LINEAR_CASES(float, f32, 0) && SA_LINEAR_CASES(float, f32, 123) && SA_LINEAR_CASES(float, f32, 789);
}

constexpr bool double_linear_matches_torch() {
  return SA_LINEAR_CASES(double, f64, 0) && SA_LINEAR_CASES(double, f64, 123) && SA_LINEAR_CASES(double, f64, 789);
}

#undef SA_LINEAR_CASES

constexpr bool large_linear_matches_torch() {
  return linear_matches<float, 64, 64>(1, ref::linear_f32_1_64x64_weight, ref::linear_f32_1_64x64_bias);
}

// The chapter's MultiHeadAttention(3, 2, ..., num_heads=2) after torch.manual_seed(123): three
// bias-free nn.Linear(3, 2) (query, key, value), then out_proj = nn.Linear(2, 2).
constexpr bool chapter_mha_initialisation_order() {
  sa::torch_generator gen{123};
  const auto w_query = sa::linear_weight<float, 3, 2>(gen);
  const auto w_key = sa::linear_weight<float, 3, 2>(gen);
  const auto w_value = sa::linear_weight<float, 3, 2>(gen);
  const auto out_proj = sa::linear<float, 2, 2>(gen);
  return w_query == to_matrix<float, 2, 3>(ref::mha_123_w_query) &&
         w_key == to_matrix<float, 2, 3>(ref::mha_123_w_key) &&
         w_value == to_matrix<float, 2, 3>(ref::mha_123_w_value) &&
         out_proj.weight == to_matrix<float, 2, 2>(ref::mha_123_out_proj_weight) &&
         out_proj.bias == to_matrix<float, 1, 2>(ref::mha_123_out_proj_bias);
}

// Every weight lies within kaiming's bound sqrt(1 / In) (gain * sqrt(3 / In) with a = sqrt(5)),
// and every bias within 1 / sqrt(In): here In = 4, so +-0.5 for both.
constexpr bool draws_respect_the_bounds() {
  sa::torch_generator gen{2024};
  const auto p = sa::linear<double, 4, 16>(gen);
  for (const double w : p.weight)
    if (!(w >= -0.5 && w < 0.5)) return false;
  for (const double b : p.bias)
    if (!(b >= -0.5 && b < 0.5)) return false;
  return true;
}

static_assert(std::is_same_v<decltype(sa::linear_params<float, 3, 2>::weight), sa::matrix<float, 2, 3>>);
static_assert(std::is_same_v<decltype(sa::linear_params<float, 3, 2>::bias), sa::matrix<float, 1, 2>>);

}  // namespace

TEST_CASE("linear<float>: weight and bias equal nn.Linear's for seeds 0, 123, 789 and six shapes") {
  SA_CHECK_BOTH(float_linear_matches_torch());
  SA_CHECK_BOTH(large_linear_matches_torch());
}

TEST_CASE("linear<double>: weight and bias equal nn.Linear(dtype=torch.float64)'s") {
  SA_CHECK_BOTH(double_linear_matches_torch());
}

TEST_CASE("linear: the chapter's MultiHeadAttention draws query, key, value, then out_proj") {
  SA_CHECK_BOTH(chapter_mha_initialisation_order());
  SA_CHECK_BOTH(draws_respect_the_bounds());
}

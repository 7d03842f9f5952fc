// SPDX-License-Identifier: BSL-1.0
// int8 post-training quantization at compile time: the chapter's multi-head attention and a
// 16 -> 16 four-head attention, their error against float bounded in static_assert (on held-out
// inputs) and again at run time, and the pieces: multipliers, rounding, requantization.
#include <cstdint>
#include <type_traits>

#include <static_attention/quant.hpp>
#include <static_attention/static_attention.hpp>

#include "constexpr_check.hpp"
#include "quantize_models.hpp"

namespace sa = static_attention;
namespace qm = quant_models;

namespace {

// ---- Type-level truths: the contract ----
using chapter_q_type = std::remove_cvref_t<decltype(qm::chapter_q)>;
static_assert(std::is_same_v<chapter_q_type, sa::quantized_multi_head_attention<3, 2, 2, 6>>);
static_assert(std::is_trivially_copyable_v<chapter_q_type>);
static_assert(std::is_same_v<decltype(qm::chapter_q(qm::chapter_inputs)), sa::matrix<float, 6, 2>>);
static_assert(std::is_same_v<decltype(qm::mha16_q(qm::mha16_held_out)), sa::tensor<float, 4, 8, 16>>);
// Weights take a byte each: 4 d^2 bytes of int8 instead of 16 d^2 of float.
static_assert(sizeof(qm::mha16_q.W_query.weight) * 4 == sizeof(qm::mha16.W_query));

// ---- Error bounds against float, on held-out inputs (constexpr values) ----
// The chapter: calibrated on 32 torch.rand(6, 3) sequences, evaluated on the chapter's inputs.
inline constexpr float chapter_bound = 3.5e-3f;  // reached: 3.346e-3
// 16 -> 16, four heads: calibrated on 8 sequences, evaluated on 4 others (|output| <= 0.66).
inline constexpr float mha16_bound = 5.5e-3f;       // reached: 5.412e-3
inline constexpr float mha16_bias_bound = 8.0e-3f;  // reached: 7.882e-3 (qkv_bias)

static_assert(sa::max_abs_diff(qm::chapter_q(qm::chapter_inputs), qm::chapter_mha(qm::chapter_inputs)) <=
              chapter_bound);
static_assert(sa::max_abs_diff(qm::mha16_q(qm::mha16_held_out), qm::mha16(qm::mha16_held_out)) <= mha16_bound);
static_assert(sa::max_abs_diff(qm::mha16_bias_q(qm::mha16_held_out), qm::mha16_bias(qm::mha16_held_out)) <=
              mha16_bias_bound);

// ---- Pieces ----
constexpr bool multipliers_round_trip() {
  // TFLM's QuantizeMultiplier: 0.5 is 2^30 * 2^(0 - 31)... i.e. multiplier 2^30, shift 0.
  const auto half = sa::detail::quantize_multiplier(0.5);
  const auto three = sa::detail::quantize_multiplier(3.0);
  const auto tiny = sa::detail::quantize_multiplier(1.0 / 3000.0);
  const double t = sa::detail::multiplier_value(tiny);
  return half.multiplier == (1 << 30) && half.shift == 0 && three.multiplier == (3 << 29) && three.shift == 2 &&
         t > (1.0 / 3000.0) * (1 - 1e-9) && t < (1.0 / 3000.0) * (1 + 1e-9) &&
         sa::detail::quantize_multiplier(0.0) == sa::fixed_multiplier{};
}

constexpr bool rounding_is_half_away_and_requantization_half_up() {
  using sa::detail::multiply_by_quantized_multiplier;
  using sa::detail::round_away;
  const auto half = sa::detail::quantize_multiplier(0.5);
  // TFLM single rounding: round(x / 2) with halves up.
  return round_away(2.5) == 3 && round_away(-2.5) == -3 && round_away(2.4999999) == 2 && round_away(0.5f) == 1 &&
         round_away(-0.49999997f) == 0 && multiply_by_quantized_multiplier(5, half) == 3 &&
         multiply_by_quantized_multiplier(-5, half) == -2 && multiply_by_quantized_multiplier(-6, half) == -3 &&
         sa::detail::requantize_int8(1000, half, 10) == 127 && sa::detail::requantize_int8(-1000, half, 10) == -128;
}

constexpr bool input_quantization_saturates() {
  // scale 1/64 around zero point 3: codes saturate (a NaN, run time only, goes to -128).
  const float inv = 64.0f;
  return sa::detail::quantize_value(0.0f, inv, 3) == 3 && sa::detail::quantize_value(1.0f, inv, 3) == 67 &&
         sa::detail::quantize_value(100.0f, inv, 3) == 127 && sa::detail::quantize_value(-1e30f, inv, 3) == -128;
}

constexpr bool calibration_ranges_include_zero_and_the_data() {
  const auto& r = qm::chapter_ranges;
  const auto& q = qm::chapter_q;
  // torch.rand is in [0, 1): the input range is [0, max), zero point -128.
  return r.input.lo == 0.0 && r.input.hi > 0.99 && r.input.hi < 1.0 && q.input.zero_point == -128 && r.value.lo < 0.0 &&
         r.value.hi > 0.0 && q.W_query.weight(0, 0) != 0;
}

constexpr bool weights_are_symmetric_per_channel() {
  // Each output channel's largest |weight| is 127 (or -127).
  const auto& w = qm::mha16_q.W_key.weight;
  for (std::size_t j = 0; j < 16; ++j) {
    int peak = 0;
    for (std::size_t k = 0; k < 16; ++k) {
      const int a = w(j, k) < 0 ? -w(j, k) : w(j, k);
      if (a > peak) peak = a;
    }
    if (peak != 127) return false;
  }
  return true;
}

constexpr bool first_token_attends_to_itself() {
  // Row 0 of causal attention sees only token 0: its probability is exactly 2^15, so the
  // context is the value row requantized, for every sequence length.
  const auto x6 = qm::chapter_inputs;
  const sa::matrix<float, 1, 3> x1{{x6(0, 0), x6(0, 1), x6(0, 2)}};
  const auto y6 = qm::chapter_q(x6);
  const auto y1 = qm::chapter_q(x1);
  return y1(0, 0) == y6(0, 0) && y1(0, 1) == y6(0, 1);
}

constexpr bool one_call_equals_two() { return sa::quantize(qm::chapter_mha, qm::chapter_calibration) == qm::chapter_q; }

constexpr bool batch_is_per_item() {
  const auto y = qm::mha16_q(qm::mha16_held_out);
  return y[0] == qm::mha16_q(qm::mha16_held_out[0]) && y[3] == qm::mha16_q(qm::mha16_held_out[3]);
}

constexpr bool integer_path_is_the_float_path() {
  const auto& q = qm::mha16_q;
  const auto x = qm::mha16_held_out[1];
  return q.dequantize_output(q.forward_integer(q.quantize_input(x))) == q(x);
}

}  // namespace

TEST_CASE("fixed-point multipliers as TFLM's QuantizeMultiplier") { SA_CHECK_BOTH(multipliers_round_trip()); }
TEST_CASE("rounding: half away from zero; requantization: single rounding, halves up, saturated") {
  SA_CHECK_BOTH(rounding_is_half_away_and_requantization_half_up());
}
TEST_CASE("input quantization saturates and takes NaN to -128") {
  SA_CHECK_BOTH(input_quantization_saturates());
  const volatile float nan = __builtin_nanf("");
  CHECK(sa::detail::quantize_value(nan, 64.0f, 3) == -128);
}
TEST_CASE("calibration ranges include zero and the data") {
  SA_CHECK_BOTH(calibration_ranges_include_zero_and_the_data());
}
TEST_CASE("weights: symmetric per output channel") { SA_CHECK_BOTH(weights_are_symmetric_per_channel()); }
TEST_CASE("causal: the first token attends to itself alone") { SA_CHECK_BOTH(first_token_attends_to_itself()); }
TEST_CASE("quantize(model, calibration) is quantize(model, calibrate(model, calibration))") {
  SA_CHECK_BOTH(one_call_equals_two());
}
TEST_CASE("a batch is quantized item by item") { SA_CHECK_BOTH(batch_is_per_item()); }
TEST_CASE("q(x) is quantize_input, forward_integer, dequantize_output") {
  SA_CHECK_BOTH(integer_path_is_the_float_path());
}

TEST_CASE("error bounds against float hold at run time too") {
  // Run time, on inputs the optimiser cannot see.
  const auto* volatile chapter_x = &qm::chapter_inputs;
  const auto* volatile held_out = &qm::mha16_held_out;
  CHECK(sa::max_abs_diff(qm::chapter_q(*chapter_x), qm::chapter_mha(*chapter_x)) <= chapter_bound);
  CHECK(sa::max_abs_diff(qm::mha16_q(*held_out), qm::mha16(*held_out)) <= mha16_bound);
  CHECK(sa::max_abs_diff(qm::mha16_bias_q(*held_out), qm::mha16_bias(*held_out)) <= mha16_bias_bound);
}

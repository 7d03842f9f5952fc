// SPDX-License-Identifier: BSL-1.0
// The float models the quantization tests quantize, their calibration and held-out inputs: the
// chapter's MultiHeadAttention (3 -> 2, two heads, context 6, torch's weights) and a 16 -> 16
// four-head attention drawn as torch.manual_seed(123) draws nn.Linear weights.
#pragma once

#include <static_attention/core/random.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/quant.hpp>

#include "chapter_reference.hpp"
#include "reference_support.hpp"

namespace quant_models {
namespace sa = static_attention;

// The chapter: its 6 x 3 inputs ("Your journey starts with one step") are the held-out inputs.
inline constexpr auto chapter_inputs = test_support::to_matrix<float, 6, 3>(reference::chapter::x);
inline constexpr auto chapter_mha = sa::multi_head_attention<float, 3, 2, 2, 6>::from_linear(
    test_support::to_matrix<float, 2, 3>(reference::chapter::mha_w_query),
    test_support::to_matrix<float, 2, 3>(reference::chapter::mha_w_key),
    test_support::to_matrix<float, 2, 3>(reference::chapter::mha_w_value),
    test_support::to_matrix<float, 2, 2>(reference::chapter::mha_out_proj_weight),
    test_support::to_matrix<float, 1, 2>(reference::chapter::mha_out_proj_bias));
// Calibration: 32 sequences of torch.rand(6, 3) (the chapter's embeddings lie in [0, 1)), seed 123.
inline constexpr auto chapter_calibration = [] {
  sa::torch_generator gen{123};
  return sa::rand<float, 32, 6, 3>(gen);
}();
inline constexpr auto chapter_ranges = sa::calibrate(chapter_mha, chapter_calibration);
inline constexpr auto chapter_q = sa::quantize(chapter_mha, chapter_ranges);

// 16 -> 16, four heads of 4, context 8, with an output bias: weights as nn.Linear draws them.
template <bool QkvBias>
constexpr auto make_mha16() {
  sa::torch_generator gen{123};
  using model = sa::multi_head_attention<float, 16, 16, 4, 8, QkvBias>;
  auto m = model::from_linear(sa::linear_weight<float, 16, 16>(gen), sa::linear_weight<float, 16, 16>(gen),
                              sa::linear_weight<float, 16, 16>(gen), sa::linear_weight<float, 16, 16>(gen),
                              sa::linear_bias<float, 16, 16>(gen));
  if constexpr (QkvBias) {
    m.b_query = sa::linear_bias<float, 16, 16>(gen);
    m.b_key = sa::linear_bias<float, 16, 16>(gen);
    m.b_value = sa::linear_bias<float, 16, 16>(gen);
  }
  return m;
}
inline constexpr auto mha16 = make_mha16<false>();
inline constexpr auto mha16_bias = make_mha16<true>();
// Calibration: 8 sequences of 8 tokens, uniform in [-1, 1), seed 1; held out: seed 2.
template <std::size_t B>
constexpr auto uniform_pm1(unsigned long long seed) {
  sa::torch_generator gen{seed};
  return sa::rand<float, B, 8, 16>(gen) * 2.0f - 1.0f;
}
inline constexpr auto mha16_calibration = uniform_pm1<8>(1);
inline constexpr auto mha16_held_out = uniform_pm1<4>(2);
inline constexpr auto mha16_ranges = sa::calibrate(mha16, mha16_calibration);
inline constexpr auto mha16_q = sa::quantize(mha16, mha16_ranges);
inline constexpr auto mha16_bias_ranges = sa::calibrate(mha16_bias, mha16_calibration);
inline constexpr auto mha16_bias_q = sa::quantize(mha16_bias, mha16_bias_ranges);

}  // namespace quant_models

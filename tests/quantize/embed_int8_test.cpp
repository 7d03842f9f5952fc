// SPDX-License-Identifier: BSL-1.0
// The int8 weights path end to end: examples/weights/*.npy (a float 16 -> 16 four-head
// attention) and fixtures/calibration.npy through tools/quantize_weights.py into a header of
// constexpr int8 codes, which must equal static_attention::quantize() of the same float model
// (embedded with static_attention_embed_weights) and stay within its error bound against torch.
#include <static_attention/core/elementwise.hpp>
#include <static_attention/quant.hpp>

#include <int8_weights/attention.hpp>  // tools/quantize_weights.py
#include <int8_weights/float.hpp>      // tools/embed_weights.cpp

#include "constexpr_check.hpp"

namespace sa = static_attention;
namespace fw = float_weights;

namespace {
using model_type = sa::multi_head_attention<float, 16, 16, 4, 32>;
constexpr model_type model =
    model_type::from_linear(fw::w_query, fw::w_key, fw::w_value, fw::out_proj_weight, fw::out_proj_bias);
constexpr auto ranges = sa::calibrate(model, fw::calibration);
constexpr auto quantized = sa::quantize(model, ranges);

// Measured: 3.374e-3 against torch on examples/weights/inputs.npy.
constexpr float bound = 3.5e-3f;

constexpr bool header_is_quantize() { return int8_weights::attention == quantized; }
constexpr bool within_bound_of_torch() {
  return sa::max_abs_diff(int8_weights::attention(fw::inputs), fw::expected) <= bound;
}
}  // namespace

TEST_CASE("the int8 header equals quantize() of the float model") { SA_CHECK_BOTH(header_is_quantize()); }
TEST_CASE("the int8 header's model is within its bound of torch") { SA_CHECK_BOTH(within_bound_of_torch()); }
TEST_CASE("the int8 header's model gives the constant evaluator's bits at run time") {
  static constexpr auto expected = int8_weights::attention(fw::inputs);
  const auto* volatile q = &int8_weights::attention;
  const auto* volatile x = &fw::inputs;
  CHECK((*q)(*x) == expected);
}

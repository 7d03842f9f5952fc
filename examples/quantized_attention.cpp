// SPDX-License-Identifier: BSL-1.0
// int8 post-training quantization at compile time (docs/quantization.md): the chapter's
// MultiHeadAttention(d_in=3, d_out=2, context_length=6, num_heads=2), drawn as
// torch.manual_seed(123) draws it, calibrated on 32 random sequences, quantized by the compiler,
// and its worst error against float on the chapter's inputs bounded by a static_assert.
#include <cstdio>

#include <static_attention/quant.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

namespace {

// [snippet:quantize]
constexpr auto model = [] {
  sa::torch_generator gen{123};
  const auto W_query = sa::linear_weight<float, 3, 2>(gen);
  const auto W_key = sa::linear_weight<float, 3, 2>(gen);
  const auto W_value = sa::linear_weight<float, 3, 2>(gen);
  const auto out_proj = sa::linear<float, 2, 2>(gen);
  return sa::multi_head_attention<float, 3, 2, 2, 6>::from_linear(W_query, W_key, W_value, out_proj.weight,
                                                                  out_proj.bias);
}();

// Calibration inputs: 32 sequences of 6 tokens like the chapter's embeddings, in [0, 1).
constexpr auto calibration = [] {
  sa::torch_generator gen{7};
  return sa::rand<float, 32, 6, 3>(gen);
}();

constexpr auto q = sa::quantize(model, calibration);  // int8 weights and activations, integer softmax

// Held out: the chapter's "Your journey starts with one step".
constexpr sa::matrix<float, 6, 3> inputs{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
                                         {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};
static_assert(sa::max_abs_diff(q(inputs), model(inputs)) <= 5e-3f, "int8 attention drifted from float");
// [/snippet]

}  // namespace

int main() {
  const auto* volatile x = &inputs;
  const auto int8_out = q(*x);  // integer-only inside, float in and out
  const auto float_out = model(*x);
  const float err = sa::max_abs_diff(int8_out, float_out);
  std::printf("quantized_attention: int8 %u bytes, float %u bytes; max |int8 - float| = %.3g\n",
              static_cast<unsigned>(sizeof q), static_cast<unsigned>(sizeof model), static_cast<double>(err));
  return err <= 5e-3f ? 0 : 1;
}

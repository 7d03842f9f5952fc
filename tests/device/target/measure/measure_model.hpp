// SPDX-License-Identifier: BSL-1.0
// The model measured on the boards (docs/embedded.md): examples/embedded_attention.cpp's
// MultiHeadAttention(d_in=16, d_out=16, context_length=32, num_heads=4), causal, on 8 tokens,
// from the same .npy files. library_forward is its forward pass, in a function of its own so
// that its code can be counted and its frame read from -fstack-usage; plain_forward
// (plain_attention.c) is the same attention as a C programmer would write it, with triple loops.
#pragma once

#include <static_attention/nn/multi_head_attention.hpp>

#include <device/embedded_weights.hpp>

namespace measure {

namespace sa = static_attention;
using model_type = sa::multi_head_attention<float, 16, 16, 4, 32>;
using input_type = sa::matrix<float, 8, 16>;

inline constexpr model_type model =
    model_type::from_linear(device_weights::w_query, device_weights::w_key, device_weights::w_value,
                            device_weights::out_proj_weight, device_weights::out_proj_bias);

/// out = model(x), out of line.
void library_forward(const model_type& m, const input_type& x, input_type& out) noexcept;

}  // namespace measure

extern "C" {
/// The same forward pass in C: x is 8 x 16; the weights in nn.Linear's layout (out x in).
void plain_forward(const float* x, const float* w_query, const float* w_key, const float* w_value, const float* w_out,
                   const float* b_out, float* out);
}

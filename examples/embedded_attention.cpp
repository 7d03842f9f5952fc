// SPDX-License-Identifier: BSL-1.0
// Embedded deployment: a multi-head attention model whose weights live in the binary's read-only
// data. examples/weights/*.npy (written by tests/reference/gen_embedded_weights.py with numpy) become the
// constexpr matrices of <embedded_attention/weights.hpp> at build time
// (static_attention_embed_weights, see examples/CMakeLists.txt); the model is built from them by
// the compiler, checked against torch at compile time, stored in .rodata, and run again at run
// time on the same input. Built with -Os -fno-exceptions -fno-rtti; no <iostream>, no heap
// (tests/embedded/ proves both, and that no static initialiser runs).
// [snippet:includes]
#include <cstdio>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/nn/multi_head_attention.hpp>

#include <embedded_attention/weights.hpp>  // generated from examples/weights/*.npy
// [/snippet]

namespace sa = static_attention;

namespace embedded_attention {

// [snippet:model]
// The chapter's MultiHeadAttention(d_in=16, d_out=16, context_length=32, num_heads=4), from the
// nn.Linear weights numpy wrote. Constant-initialised: it is stored in .rodata, not built at start-up.
using model_type = sa::multi_head_attention<float, 16, 16, 4, 32>;
inline constexpr model_type model = model_type::from_linear(weights::w_query, weights::w_key, weights::w_value,
                                                            weights::out_proj_weight, weights::out_proj_bias);

// Constexpr truth: the compiler runs the forward pass on the 8 x 16 input and agrees with torch.
static_assert(sa::approx_equal(model(weights::inputs), weights::expected, 1e-5f));
// [/snippet]

// Type-level truth: the embedded files' shapes are in their types.
static_assert(sa::rows_v<decltype(weights::inputs)> == 8 && sa::cols_v<decltype(weights::inputs)> == 16);
static_assert(sa::cols_v<decltype(model(weights::inputs))> == 16);

}  // namespace embedded_attention

// [snippet:run]
int main() {
  namespace ea = embedded_attention;
  // Read the model and the input through volatile pointers, so that the optimiser cannot fold the
  // forward pass into a constant: what follows is run-time truth.
  const ea::model_type* volatile model = &ea::model;
  const sa::matrix<float, 8, 16>* volatile inputs = &ea::weights::inputs;

  const auto context = (*model)(*inputs);  // 8 x 16, on the stack
  const float error = sa::max_abs_diff(context, ea::weights::expected);
  std::printf("embedded_attention: 8 x 16 -> 8 x 16, max |C++ - torch| = %.3g\n", static_cast<double>(error));
  return error <= 1e-5f ? 0 : 1;
}
// [/snippet]

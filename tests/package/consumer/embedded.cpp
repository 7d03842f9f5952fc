// SPDX-License-Identifier: BSL-1.0
// A consumer's embedded program: its weights (the chapter's six-token input, weights/inputs.npy)
// are embedded at build time by static_attention_embed_weights, which the package provides, and
// the chapter's context vector for "journey" is checked at compile time and at run time.
#include <static_attention/core/elementwise.hpp>
#include <static_attention/nn/simplified_attention.hpp>

#include <consumer/weights.hpp>

namespace sa = static_attention;

constexpr auto z2 = sa::context_vector(consumer::weights::inputs, 1);
static_assert(sa::approx_equal(z2, sa::matrix<float, 1, 3>{{0.4419f, 0.6515f, 0.5683f}}, 5e-5f));

int main() {
  const sa::matrix<float, 6, 3>* volatile inputs = &consumer::weights::inputs;  // at run time, too
  return sa::approx_equal(sa::context_vector(*inputs, 1), z2, 1e-6f) ? 0 : 1;
}

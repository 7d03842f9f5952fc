// SPDX-License-Identifier: BSL-1.0
// transformer_block against torch's TransformerBlock (pre-LN, shortcuts), weights from
// torch.manual_seed(9): float within 1e-6, double within 1e-12, at both times; init_like_torch
// from the same seed draws the same weights.
#include <static_attention/nn/torch_init.hpp>
#include <static_attention/nn/transformer_block.hpp>

#include "constexpr_check.hpp"
#include "gpt_reference.hpp"
#include "gpt_test_support.hpp"

namespace sa = static_attention;
namespace ref = reference::gpt;
using test_support::to_matrix;

namespace {

struct block_weights {
  const double (&wq)[64];
  const double (&wk)[64];
  const double (&wv)[64];
  const double (&wo)[64];
  const double (&bo)[8];
  const double (&w0)[256];
  const double (&b0)[32];
  const double (&w2)[256];
  const double (&b2)[8];
  const double (&n1s)[8];
  const double (&n1b)[8];
  const double (&n2s)[8];
  const double (&n2b)[8];
};

template <class T>
using block = sa::transformer_block<T, 8, 2, 4>;

template <class T>
constexpr block<T> from_torch(const block_weights& w) {
  block<T> b;
  b.att = sa::multi_head_attention<T, 8, 8, 2, 4>::from_linear(to_matrix<T, 8, 8>(w.wq), to_matrix<T, 8, 8>(w.wk),
                                                               to_matrix<T, 8, 8>(w.wv), to_matrix<T, 8, 8>(w.wo),
                                                               to_matrix<T, 1, 8>(w.bo));
  b.ff.expand = sa::linear_layer<T, 8, 32>::from_linear(to_matrix<T, 32, 8>(w.w0), to_matrix<T, 1, 32>(w.b0));
  b.ff.project = sa::linear_layer<T, 32, 8>::from_linear(to_matrix<T, 8, 32>(w.w2), to_matrix<T, 1, 8>(w.b2));
  b.norm1 = {to_matrix<T, 1, 8>(w.n1s), to_matrix<T, 1, 8>(w.n1b)};
  b.norm2 = {to_matrix<T, 1, 8>(w.n2s), to_matrix<T, 1, 8>(w.n2b)};
  return b;
}

template <class T>
constexpr bool matches_torch(const block_weights& w, const double (&expected)[24], double tol) {
  const block<T> b = from_torch<T>(w);
  block<T> drawn{};
  sa::torch_generator gen{9};
  sa::init_like_torch(drawn, gen);
  const auto x = to_matrix<T, 3, 8>(ref::transformer_block_x);
  return gpt_test::close(b(x), to_matrix<T, 3, 8>(expected), tol) && drawn.att.W_query == b.att.W_query &&
         drawn.att.W_out == b.att.W_out && drawn.att.b_out == b.att.b_out &&
         drawn.ff.project.bias == b.ff.project.bias && drawn.norm1.scale == sa::ones<T, 1, 8>() &&
         drawn.norm2.shift == sa::zeros<T, 1, 8>();
}

#define SA_BLOCK_WEIGHTS(dt)                                                                                 \
  block_weights {                                                                                            \
    ref::transformer_block_##dt##_att_W_query_weight, ref::transformer_block_##dt##_att_W_key_weight,        \
        ref::transformer_block_##dt##_att_W_value_weight, ref::transformer_block_##dt##_att_out_proj_weight, \
        ref::transformer_block_##dt##_att_out_proj_bias, ref::transformer_block_##dt##_ff_layers_0_weight,   \
        ref::transformer_block_##dt##_ff_layers_0_bias, ref::transformer_block_##dt##_ff_layers_2_weight,    \
        ref::transformer_block_##dt##_ff_layers_2_bias, ref::transformer_block_##dt##_norm1_scale,           \
        ref::transformer_block_##dt##_norm1_shift, ref::transformer_block_##dt##_norm2_scale,                \
        ref::transformer_block_##dt##_norm2_shift                                                            \
  }

// The shortcut's role: with every weight zero, attention and feed-forward add nothing (their
// outputs are 0) and the block is the identity; it keeps the input flowing.
constexpr bool zero_block_is_identity() {
  const block<double> b{};
  const auto x = to_matrix<double, 3, 8>(ref::transformer_block_x);
  return b(x) == x;
}

}  // namespace

TEST_CASE("transformer_block: torch's TransformerBlock, float and double") {
  SA_CHECK_BOTH(matches_torch<float>(SA_BLOCK_WEIGHTS(f32), ref::transformer_block_out_f32, 1e-6));
  SA_CHECK_BOTH(matches_torch<double>(SA_BLOCK_WEIGHTS(f64), ref::transformer_block_out_f64, 1e-12));
}

TEST_CASE("transformer_block: the shortcuts carry the input through a block that adds nothing") {
  SA_CHECK_BOTH(zero_block_is_identity());
}

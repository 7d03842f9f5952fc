// SPDX-License-Identifier: BSL-1.0
// softmax and every attention stage and module: run time gives the constant evaluator's bits,
// on laundered and on constant inputs, float and double, the chapter's 6x3 and shapes with tails.
#include <doctest/doctest.h>

#include <limits>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/static_attention.hpp>

#include "same_bits_support.hpp"

namespace sa = static_attention;
using same_bits::inputs;
using same_bits::launder;

namespace {

template <class T, std::size_t N, std::size_t Din, std::size_t Dout, std::size_t Heads>
struct attention_case {
  using x_type = sa::matrix<T, N, Din>;
  static constexpr auto x = inputs<x_type>(N * 7 + Din);
  // Batches of two up to 17 tokens; longer cases run one sequence (within Clang's default step
  // limit, and the batched paths' tails are those of the shorter cases).
  static constexpr std::size_t batch = N > 17 ? 1 : 2;
  static constexpr auto xb = inputs<sa::tensor<T, batch, N, Din>>(N * 11 + Din);
  static constexpr sa::self_attention<T, Din, Dout> self_attn{
      inputs<sa::matrix<T, Din, Dout>>(1), inputs<sa::matrix<T, Din, Dout>>(2), inputs<sa::matrix<T, Din, Dout>>(3)};
  static constexpr sa::causal_attention<T, Din, Dout> causal{
      inputs<sa::matrix<T, Din, Dout>>(4), inputs<sa::matrix<T, Din, Dout>>(5), inputs<sa::matrix<T, Din, Dout>>(6)};
  static constexpr sa::multi_head_attention<T, Din, Dout, Heads> mha{
      inputs<sa::matrix<T, Din, Dout>>(7),   inputs<sa::matrix<T, Din, Dout>>(8), inputs<sa::matrix<T, Din, Dout>>(9),
      inputs<sa::matrix<T, Dout, Dout>>(10), inputs<sa::matrix<T, 1, Dout>>(11),  T(0.25)};
  static constexpr auto linear = sa::linear_layer<T, Dout, Din>::from_linear(inputs<sa::matrix<T, Din, Dout>>(12),
                                                                             inputs<sa::matrix<T, 1, Din>>(13));
  static constexpr auto wrapper = sa::make_multi_head_attention_wrapper(causal, causal);
  static constexpr auto model = sa::make_model(mha, linear, causal);

  // Dropout draws from a generator: a fresh one per call, so both worlds see the same draws.
  static constexpr auto mha_train(const x_type& in) {
    sa::torch_generator gen{42};
    return mha(in, gen);
  }
  static constexpr auto causal_train(const x_type& in) {
    sa::torch_generator gen{43};
    return causal(in, gen);
  }

  static void check() {
    INFO("N=" << N << " d_in=" << Din << " d_out=" << Dout << " heads=" << Heads);
    static constexpr auto scores = sa::attention_scores(x);
    static constexpr auto softmax_x = sa::softmax(x);
    static constexpr auto weights = sa::attention_weights(x);
    static constexpr auto context = sa::context_vectors(x);
    static constexpr auto context_b = sa::context_vectors(xb);
    static constexpr auto context_last = sa::context_vector(x, N - 1);
    static constexpr auto self_out = self_attn(x);
    static constexpr auto self_b = self_attn(xb);
    static constexpr auto causal_out = causal(x);
    static constexpr auto causal_drop = causal_train(x);
    static constexpr auto mha_out = mha(x);
    static constexpr auto mha_b = mha(xb);
    static constexpr auto mha_drop = mha_train(x);
    static constexpr auto mha_weights = mha.attention_weights(x);
    static constexpr auto wrapper_out = wrapper(x);
    static constexpr auto linear_out = linear(mha_out);
    static constexpr auto model_out = sa::forward(model, x);

    const auto lx = launder(x);
    const auto lxb = launder(xb);
    SAME_BITS_CHECK(scores, sa::attention_scores(lx), sa::attention_scores(x));
    SAME_BITS_CHECK(softmax_x, sa::softmax(lx), sa::softmax(x));
    SAME_BITS_CHECK(weights, sa::attention_weights(lx), sa::attention_weights(x));
    SAME_BITS_CHECK(context, sa::context_vectors(lx), sa::context_vectors(x));
    SAME_BITS_CHECK(context_b, sa::context_vectors(lxb), sa::context_vectors(xb));
    SAME_BITS_CHECK(context_last, sa::context_vector(lx, N - 1), sa::context_vector(x, N - 1));
    SAME_BITS_CHECK(self_out, self_attn(lx), self_attn(x));
    SAME_BITS_CHECK(self_b, self_attn(lxb), self_attn(xb));
    SAME_BITS_CHECK(causal_out, causal(lx), causal(x));
    SAME_BITS_CHECK(causal_drop, causal_train(lx), causal_train(x));
    SAME_BITS_CHECK(mha_out, mha(lx), mha(x));
    SAME_BITS_CHECK(mha_b, mha(lxb), mha(xb));
    SAME_BITS_CHECK(mha_drop, mha_train(lx), mha_train(x));
    SAME_BITS_CHECK(mha_weights, mha.attention_weights(lx), mha.attention_weights(x));
    SAME_BITS_CHECK(wrapper_out, wrapper(lx), wrapper(x));
    SAME_BITS_CHECK(linear_out, linear(launder(mha_out)), linear(mha_out));
    SAME_BITS_CHECK(model_out, sa::forward(model, lx), sa::forward(model, x));
  }
};

// softmax_rows directly, causal and not, on shapes whose rows are shorter, longer and as long as
// a vector, fewer and more rows than columns (four rows summed together, single rows), and rows
// of -inf and NaN (a row of zeros, a row of NaN).
template <class T, bool Causal, std::size_t R, std::size_t C>
void check_softmax_rows() {
  using M = sa::matrix<T, R, C>;
  static constexpr M x = [] {
    M m = inputs<M>(R * 31 + C);
    if constexpr (R > 2) {
      for (std::size_t j = 0; j < C; ++j) m.elems[1 * C + j] = -std::numeric_limits<T>::infinity();
      m.elems[2 * C] = std::numeric_limits<T>::quiet_NaN();
    }
    return m;
  }();
  static constexpr M expected = [] {
    M out;
    sa::detail::softmax_rows<T, Causal>(x.elems, out.elems, R, C);
    return out;
  }();
  INFO(R << "x" << C << (Causal ? " causal" : ""));
  const M lx = launder(x);
  M r1;
  sa::detail::softmax_rows<T, Causal>(lx.elems, r1.elems, R, C);
  M r2 = lx;
  sa::detail::softmax_rows<T, Causal>(r2.elems, r2.elems, R, C);  // in place
  SAME_BITS_CHECK(expected, r1, r2);
}

template <class T, bool Causal>
void check_softmax_rows_shapes() {
  check_softmax_rows<T, Causal, 1, 1>();
  check_softmax_rows<T, Causal, 3, 5>();
  check_softmax_rows<T, Causal, 6, 6>();
  check_softmax_rows<T, Causal, 9, 4>();
  check_softmax_rows<T, Causal, 7, 17>();
  check_softmax_rows<T, Causal, 17, 9>();
  check_softmax_rows<T, Causal, 13, 33>();
  check_softmax_rows<T, Causal, 40, 16>();
}

}  // namespace

TEST_CASE_TEMPLATE("softmax rows, causal and not, special rows, at both times", T, float, double) {
  check_softmax_rows_shapes<T, false>();
  check_softmax_rows_shapes<T, true>();
}

TEST_CASE_TEMPLATE("attention: the chapter's 6x3 at both times", T, float, double) {
  attention_case<T, 6, 3, 2, 1>::check();
  attention_case<T, 6, 3, 4, 2>::check();
}

// Tails in the sequence (1, 5, 17, 33, 41 tokens), the heads (1 to 5, of 1 to 4 dimensions) and
// the model width (17: the projections' k and the output layer's columns). The long sequences
// keep narrow widths: the projections are matmul's kernels, whose tails up to 65
// matmul_same_bits.cpp covers, and width multiplied their compile time (17 x 33 x 5 x 5 and
// 33 x 17 x 8 x 2 took half of this file's at -O3).
TEST_CASE_TEMPLATE("attention: shapes with tails at both times", T, float, double) {
  attention_case<T, 1, 1, 1, 1>::check();
  attention_case<T, 5, 17, 6, 2>::check();
  attention_case<T, 17, 5, 5, 5>::check();
  attention_case<T, 33, 5, 4, 1>::check();
  attention_case<T, 41, 5, 4, 2>::check();
}

// SPDX-License-Identifier: BSL-1.0
// Multi-head attention: heads, the output projection, and the wrapper, in terms of the
// single-head modules. (Values against torch are in chapter_test.cpp and random_shapes_test.cpp.)
#include <boost/hana/at.hpp>
#include <boost/hana/size.hpp>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/multi_head_attention.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;
namespace hana = boost::hana;

namespace {

constexpr auto inputs = [] {
  sa::torch_generator gen{1};
  return sa::rand<double, 5, 4>(gen);
}();

// One head and an identity projection with no bias is plain causal attention.
constexpr bool one_head_is_causal_attention() {
  sa::torch_generator gen{2};
  const auto wq = sa::linear_weight<double, 4, 3>(gen);
  const auto wk = sa::linear_weight<double, 4, 3>(gen);
  const auto wv = sa::linear_weight<double, 4, 3>(gen);
  const auto mha = sa::multi_head_attention<double, 4, 3, 1>::from_linear(wq, wk, wv, sa::identity<double, 3>(),
                                                                          sa::zeros<double, 1, 3>());
  const auto ca = sa::causal_attention<double, 4, 3>::from_linear(wq, wk, wv);
  return sa::approx_equal(mha(inputs), ca(inputs), 1e-15);
}

// Head h of a multi-head module is causal attention on columns [h*head_dim, (h+1)*head_dim) of
// the projections, scaled by 1/sqrt(head_dim); then comes x W_out + b_out.
constexpr bool heads_are_column_blocks_then_projection() {
  sa::torch_generator gen{3};
  const auto wq = sa::linear_weight<double, 4, 6>(gen);
  const auto wk = sa::linear_weight<double, 4, 6>(gen);
  const auto wv = sa::linear_weight<double, 4, 6>(gen);
  const auto out_proj = sa::linear<double, 6, 6>(gen);
  const auto mha = sa::multi_head_attention<double, 4, 6, 3>::from_linear(wq, wk, wv, out_proj.weight, out_proj.bias);
  static_assert(decltype(mha)::head_dim == 2);
  const auto head = [&](auto offset) {
    auto rows = [&](const auto& w) { return sa::transpose(sa::slice_cols<offset, 2>(sa::transpose(w))); };
    return sa::causal_attention<double, 4, 2>::from_linear(rows(wq), rows(wk), rows(wv))(inputs);
  };
  const auto heads = sa::concat(head(hana::size_c<0>), head(hana::size_c<2>), head(hana::size_c<4>));
  auto expected = sa::matmul(heads, sa::transpose(out_proj.weight));
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 6; ++j) expected(i, j) += out_proj.bias(0, j);
  const auto weights = mha.attention_weights(inputs);
  return sa::approx_equal(mha(inputs), expected, 1e-15) &&
         weights[0] ==
             sa::causal_attention<double, 4, 2>::from_linear(sa::transpose(sa::slice_cols<0, 2>(sa::transpose(wq))),
                                                             sa::transpose(sa::slice_cols<0, 2>(sa::transpose(wk))),
                                                             sa::transpose(sa::slice_cols<0, 2>(sa::transpose(wv))))
                 .attention_weights(inputs);
}

constexpr bool wrapper_concatenates_its_heads() {
  sa::torch_generator gen{4};
  auto head = [&gen] {
    const auto wq = sa::linear_weight<double, 4, 2>(gen);
    const auto wk = sa::linear_weight<double, 4, 2>(gen);
    const auto wv = sa::linear_weight<double, 4, 2>(gen);
    return sa::causal_attention<double, 4, 2>::from_linear(wq, wk, wv);
  };
  const auto h0 = head();
  const auto h1 = head();
  const auto h2 = head();
  const auto wrapper = sa::make_multi_head_attention_wrapper(h0, h1, h2);
  static_assert(decltype(hana::size(wrapper.heads))::value == 3);
  const auto out = wrapper(inputs);
  const auto batch_out = wrapper(sa::stack(inputs, inputs * 2.0));
  return out == sa::concat(h0(inputs), h1(inputs), h2(inputs)) && batch_out[0] == out &&
         batch_out[1] == wrapper(inputs * 2.0) && hana::at_c<1>(wrapper.heads).W_key == h1.W_key;
}

constexpr bool batch_is_per_item() {
  sa::torch_generator gen{5};
  const auto mha = sa::multi_head_attention<double, 4, 4, 2>::from_linear(
      sa::linear_weight<double, 4, 4>(gen), sa::linear_weight<double, 4, 4>(gen), sa::linear_weight<double, 4, 4>(gen),
      sa::linear_weight<double, 4, 4>(gen), sa::linear_bias<double, 4, 4>(gen));
  const auto other = inputs * -1.5;
  const auto out = mha(sa::stack(inputs, other));
  return out[0] == mha(inputs) && out[1] == mha(other);
}

}  // namespace

TEST_CASE("one head with an identity projection is causal attention") { SA_CHECK_BOTH(one_head_is_causal_attention()); }
TEST_CASE("heads are column blocks scaled by sqrt(head_dim), then the output projection") {
  SA_CHECK_BOTH(heads_are_column_blocks_then_projection());
}
TEST_CASE("the wrapper concatenates its Hana tuple of heads") { SA_CHECK_BOTH(wrapper_concatenates_its_heads()); }
TEST_CASE("a batch is attended item by item") { SA_CHECK_BOTH(batch_is_per_item()); }

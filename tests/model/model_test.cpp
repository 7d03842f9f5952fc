// SPDX-License-Identifier: BSL-1.0
// Whole-model shape checking: a Hana tuple of layers, a fold that carries the shape through
// them, and a forward pass equal to calling the layers one by one.
#include <boost/hana/at.hpp>
#include <boost/hana/equal.hpp>
#include <boost/hana/type.hpp>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/static_attention.hpp>

#include "constexpr_check.hpp"

namespace sa = static_attention;
namespace hana = boost::hana;

namespace {

constexpr auto make_layers() {
  sa::torch_generator gen{11};
  const auto mha = sa::multi_head_attention<double, 3, 4, 2>::from_linear(
      sa::linear_weight<double, 3, 4>(gen), sa::linear_weight<double, 3, 4>(gen), sa::linear_weight<double, 3, 4>(gen),
      sa::linear_weight<double, 4, 4>(gen), sa::linear_bias<double, 4, 4>(gen));
  const auto proj = sa::linear<double, 4, 8>(gen);
  const auto ffn = sa::linear_layer<double, 4, 8>::from_linear(proj.weight, proj.bias);
  const auto ca = sa::causal_attention<double, 8, 2>::from_linear(
      sa::linear_weight<double, 8, 2>(gen), sa::linear_weight<double, 8, 2>(gen), sa::linear_weight<double, 8, 2>(gen));
  return sa::make_model(mha, ffn, ca);
}
constexpr auto model = make_layers();

// Type-level: the fold over the layers' types gives the output shape for any N.
static_assert(sa::output_shape(model, hana::type_c<sa::shape<6, 3>>) == hana::type_c<sa::shape<6, 2>>);
static_assert(sa::output_shape(model, hana::type_c<sa::shape<1, 3>>) == hana::type_c<sa::shape<1, 2>>);
static_assert(sa::output_shape(sa::make_model(sa::linear_layer<float, 5, 5>{}), hana::type_c<sa::shape<2, 5>>) ==
              hana::type_c<sa::shape<2, 5>>);
static_assert(sa::layer<sa::self_attention<float, 3, 2>> && sa::layer<sa::linear_layer<float, 3, 2>> &&
              !sa::layer<sa::matrix<float, 3, 2>>);
// The wrapper's out_features is the sum of its heads' d_out.
static_assert(decltype(sa::make_multi_head_attention_wrapper(sa::causal_attention<float, 3, 2>{},
                                                             sa::causal_attention<float, 3, 5>{}))::out_features == 7);

constexpr bool forward_is_the_layers_in_order() {
  sa::torch_generator gen{12};
  const auto x = sa::rand<double, 6, 3>(gen);
  const auto by_hand = hana::at_c<2>(model)(hana::at_c<1>(model)(hana::at_c<0>(model)(x)));
  const auto batch = sa::stack(x, x * 0.5);
  const auto batched = sa::forward(model, batch);
  return sa::forward(model, x) == by_hand && batched[0] == by_hand && batched[1] == sa::forward(model, x * 0.5);
}

// linear_layer is nn.Linear: y = x W^T + b with torch's weight layout.
constexpr bool linear_layer_is_x_wt_plus_b() {
  const sa::matrix<double, 2, 3> weight{{1, 2, 3}, {4, 5, 6}};  // nn.Linear(3, 2).weight
  const sa::matrix<double, 1, 2> bias{{0.5, -1}};
  const auto layer = sa::linear_layer<double, 3, 2>::from_linear(weight, bias);
  const sa::matrix<double, 2, 3> x{{1, 0, 0}, {1, 1, 1}};
  return layer(x) == sa::matrix<double, 2, 2>{{1.5, 3}, {6.5, 14}};
}

}  // namespace

TEST_CASE("forward(model, x) applies the layers in order, to sequences and batches") {
  SA_CHECK_BOTH(forward_is_the_layers_in_order());
}
TEST_CASE("linear_layer computes x W^T + b") { SA_CHECK_BOTH(linear_layer_is_x_wt_plus_b()); }

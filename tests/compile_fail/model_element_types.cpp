// SPDX-License-Identifier: BSL-1.0
// A float layer feeding a double layer: the model names the layer and both element types.
// expect: model: each layer takes the element type the layer before \(or the input\) produces
// expect: layer_element_types_match<(static_attention::)?layer_index<1>, float, double ?>
#include <boost/hana/equal.hpp>

#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/nn/self_attention.hpp>

namespace sa = static_attention;
namespace hana = boost::hana;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto model = sa::make_model(sa::linear_layer<float, 8, 4>{}, sa::self_attention<float, 4, 2>{});
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto model = sa::make_model(sa::linear_layer<float, 8, 4>{}, sa::self_attention<double, 4, 2>{});
  // [/snippet]
#endif
  static_assert(sa::output_shape(model, hana::type_c<sa::shape<6, 8>>) == hana::type_c<sa::shape<6, 2>>);
}

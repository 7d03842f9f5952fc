// SPDX-License-Identifier: BSL-1.0
// A model whose third layer takes 6 features where the second gives 8.
// expect: error: static assertion failed.*model: each layer takes N x in_features
// expect: layer_input_fits<(static_attention::)?layer_index<2>, (static_attention::)?shape<6, 8>,
// (static_attention::)?shape<6, 6> ?>
#include <boost/hana/type.hpp>

#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>
#include <static_attention/nn/multi_head_attention.hpp>

namespace sa = static_attention;
namespace hana = boost::hana;

int main() {
#ifdef SA_TWIN
  // [snippet:right]
  constexpr auto model = sa::make_model(sa::multi_head_attention<float, 3, 4, 2>{}, sa::linear_layer<float, 4, 8>{},
                                        sa::causal_attention<float, 8, 2>{});
  // [/snippet]
#else
  // [snippet:wrong]
  constexpr auto model = sa::make_model(sa::multi_head_attention<float, 3, 4, 2>{}, sa::linear_layer<float, 4, 8>{},
                                        sa::causal_attention<float, 6, 2>{});
  // [/snippet]
#endif
  static_assert(sa::output_shape(model, hana::type_c<sa::shape<6, 3>>) == hana::type_c<sa::shape<6, 2>>);
}

// SPDX-License-Identifier: BSL-1.0
// 20 tokens through a model whose causal layer has a context length of 16: output_shape applies
// forward's rule and names the layer.
// expect: model: a layer with a context_length takes at most that many tokens
// expect: layer_tokens_within_context_length<(static_attention::)?layer_index<0>, 20(UL)?, 16(UL)? ?>
#include <boost/hana/equal.hpp>

#include <static_attention/nn/causal_attention.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/model.hpp>

namespace sa = static_attention;
namespace hana = boost::hana;

int main() {
  constexpr auto model = sa::make_model(sa::causal_attention<float, 8, 4, 16>{}, sa::linear_layer<float, 4, 2>{});
#ifdef SA_TWIN
  // [snippet:right]
  static_assert(sa::output_shape(model, hana::type_c<sa::shape<16, 8>>) == hana::type_c<sa::shape<16, 2>>);
  // [/snippet]
#else
  // [snippet:wrong]
  static_assert(sa::output_shape(model, hana::type_c<sa::shape<20, 8>>) == hana::type_c<sa::shape<20, 2>>);
  // [/snippet]
#endif
}

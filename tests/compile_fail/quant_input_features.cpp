// SPDX-License-Identifier: BSL-1.0
// A quantized attention of d_in 3 given tokens of 4 features.
// expect: error: static assertion failed.*an attention module requires inputs of N x d_in
// expect: input_features_match<static_attention::shape<6(UL)?, 4(UL)?>, 3(UL)?>
#include <static_attention/quant.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;

using mha_type = sa::multi_head_attention<float, 3, 2, 2, 6>;
constexpr mha_type mha = [] {
  mha_type m;
  sa::torch_generator gen{123};
  sa::init_like_torch(m, gen);
  return m;
}();
constexpr sa::tensor<float, 1, 6, 3> calibration = [] {
  sa::torch_generator gen{7};
  return sa::rand<float, 1, 6, 3>(gen);
}();
constexpr auto q = sa::quantize(mha, calibration);

int main() {
#ifdef SA_TWIN
  constexpr sa::matrix<float, 6, 3> inputs{};
#else
  // [snippet:wrong]
  constexpr sa::matrix<float, 6, 4> inputs{};
  // [/snippet]
#endif
  constexpr auto context = q(inputs);
  return static_cast<int>(context(0, 0));
}

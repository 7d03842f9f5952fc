// SPDX-License-Identifier: BSL-1.0
// Activations so large that the softmax's input multiplier, s_q s_k log2(e) / sqrt(head_dim) 2^16,
// is 2^30 or more: quantize() stops in constant evaluation and names the multiplier's value.
// expect: quantize_multiplier_out_of_range
#include <static_attention/quant.hpp>

namespace sa = static_attention;

#ifdef SA_TWIN
constexpr float weight = 1.0f;
#else
constexpr float weight = 1.0e5f;
#endif

constexpr auto mha = sa::multi_head_attention<float, 2, 2, 1>{
    sa::matrix<float, 2, 2>{{weight, 0.0f}, {0.0f, weight}}, sa::matrix<float, 2, 2>{{weight, 0.0f}, {0.0f, weight}},
    sa::matrix<float, 2, 2>{{1.0f, 0.0f}, {0.0f, 1.0f}}, sa::matrix<float, 2, 2>{{1.0f, 0.0f}, {0.0f, 1.0f}},
    sa::matrix<float, 1, 2>{}};
constexpr sa::tensor<float, 1, 2, 2> calibration{{{1.0f, -1.0f}, {-1.0f, 1.0f}}};
constexpr auto q = sa::quantize(mha, calibration);

int main() { return q.score_multiplier.shift; }

// SPDX-License-Identifier: BSL-1.0
// Calibration on all-zero inputs: the input's range has zero width, so no int8 scale fits it.
// expect: calibration_range_has_zero_width_calibrate_on_data_that_exercises_the_model
#include <static_attention/quant.hpp>
#include <static_attention/static_attention.hpp>

namespace sa = static_attention;
using mha = sa::multi_head_attention<float, 4, 4, 2, 4>;

constexpr mha make() {
  mha m;
  sa::torch_generator gen{123};
  sa::init_like_torch(m, gen);
  return m;
}
inline constexpr mha att = make();

#ifdef SA_TWIN
constexpr sa::tensor<float, 1, 4, 4> calibration = [] {
  sa::torch_generator gen{7};
  return sa::rand<float, 1, 4, 4>(gen);
}();
#else
constexpr sa::tensor<float, 1, 4, 4> calibration{};
#endif
constexpr auto ranges = sa::calibrate(att, calibration);
constexpr auto q = sa::quantize(att, ranges);

int main() { return static_cast<int>(q.input.zero_point); }

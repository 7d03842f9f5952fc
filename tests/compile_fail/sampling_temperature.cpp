// SPDX-License-Identifier: BSL-1.0
// A negative temperature for a generation inside constant evaluation.
// expect: sampling_temperature_must_be_finite_nonnegative_and_nonzero_in_the_element_type
#include <array>
#include <optional>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>

namespace sa = static_attention;
inline constexpr sa::gpt_config tiny{16, 4, 4, 1, 1, false};

constexpr int first_new_id() {
  sa::gpt_model<float, tiny> model;
  sa::gpt_workspace<float, tiny, 2> ws;
  sa::torch_generator gen{123};
#ifdef SA_TWIN
  const sa::sampling s{.temperature = 0.5, .top_k = 0, .eos_id = std::nullopt};
#else
  const sa::sampling s{.temperature = -0.5, .top_k = 0, .eos_id = std::nullopt};
#endif
  const auto g = sa::generate<1>(model, std::array<int, 2>{1, 2}, ws, s, gen);
  return g.ids[2];
}
static_assert(first_new_id() >= 0);

int main() {}

// SPDX-License-Identifier: BSL-1.0
// The tiny GPT the quantization tests quantize (tests/gpt's: vocab 64, context 8, emb 16, two
// heads, two layers, drawn as torch.manual_seed(123); GPTModel(cfg) draws), its calibration and
// held-out token ids, and the int8 model, each in a constant evaluation of its own.
#pragma once

#include <cstddef>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/quant.hpp>

namespace quant_gpt_models {
namespace sa = static_attention;

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};

inline constexpr auto model = [] {
  sa::gpt_model<float, tiny> m;
  sa::torch_generator gen{123};
  sa::init_like_torch(m, gen);
  return m;
}();

// B sequences of 8 ids, uniform over the vocabulary.
template <std::size_t B>
constexpr sa::matrix<int, B, 8> random_ids(unsigned long long seed) {
  sa::torch_generator gen{seed};
  sa::matrix<int, B, 8> ids;
  for (auto& id : ids.elems) id = static_cast<int>(gen.random() % tiny.vocab_size);
  return ids;
}

// Calibration: 16 sequences (seed 1); held out: 8 others (seed 2).
// [snippet:quantize_gpt]
inline constexpr auto calibration = random_ids<16>(1);  // sa::matrix<int, 16, 8>: token ids
inline constexpr auto held_out = random_ids<8>(2);
inline constexpr auto ranges = sa::calibrate(model, calibration);
inline constexpr auto q = sa::quantize(model, ranges);  // sa::quantized_gpt<tiny>
// [/snippet]

}  // namespace quant_gpt_models

// SPDX-License-Identifier: BSL-1.0
// footprint<quantized_gpt<Cfg>, quantized_gpt_workspace<Cfg, Capacity>>: the int8 GPT's memory
// plan (nn/footprint.hpp has the type and the float GPT's).
#pragma once

#include <cstddef>
#include <cstdint>

#include <static_attention/core/result.hpp>
#include <static_attention/nn/footprint.hpp>
#include <static_attention/quant/quantize_gpt.hpp>

namespace static_attention::detail {

template <gpt_config Cfg, std::size_t Capacity>
struct footprint_of<quantized_gpt<Cfg>, quantized_gpt_workspace<Cfg, Capacity>> {
  // A decode step's locals (generate's loop keeps no result, so no room for an error): the
  // final-norm codes of the last position (emb_dim int8), the logits as int32 accumulators and
  // floats (vocab_size each), a LayerNorm's centred row and a projection's accumulators (emb_dim
  // int32 each), the softmax's exponents (Capacity uint32); then the frames.
  static constexpr std::size_t stack = Cfg.emb_dim + (sizeof(std::int32_t) + sizeof(float)) * Cfg.vocab_size +
                                       2 * sizeof(std::int32_t) * Cfg.emb_dim + sizeof(std::uint32_t) * Capacity +
                                       target_frame_allowances().int8_gpt;
  static constexpr memory_plan plan{sizeof(quantized_gpt<Cfg>), sizeof(quantized_gpt_workspace<Cfg, Capacity>) + stack,
                                    stack};
};

}  // namespace static_attention::detail

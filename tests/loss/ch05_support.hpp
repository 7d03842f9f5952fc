// SPDX-License-Identifier: BSL-1.0
// Chapter 5's model for the loss tests: the book's GPT_CONFIG_124M with context_length 256,
// initialised as torch.manual_seed(123); GPTModel(cfg) does, in static storage (about 650 MB).
#pragma once

#include <cstdio>
#include <string>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/torch_init.hpp>

namespace ch05 {

/// GPT_CONFIG_124M as chapter 5 sets it: context_length 256 (drop_rate 0.1 is used only in
/// training mode; the losses are computed in eval mode).
inline constexpr static_attention::gpt_config gpt2_124m_256{50257, 256, 768, 12, 12, false};
using gpt2 = static_attention::gpt_model<float, gpt2_124m_256>;

/// The untrained model of the chapter: `torch.manual_seed(123); model = GPTModel(cfg); model.eval()`.
inline const gpt2& model() {
  static gpt2 m;  // zero-initialised: .bss
  static const bool ready = [] {
    static_attention::torch_generator gen{123};
    static_attention::init_like_torch(m, gen);
    m.set_drop_rate(0.1f);
    return true;
  }();
  (void)ready;
  return m;
}

/// `value` as torch prints a float tensor's element with 4 decimals, e.g. "10.7940".
inline std::string fixed4(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", value);
  return buf;
}

/// `value` with 9 significant digits, enough to tell floats apart.
inline std::string digits9(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

/// `value` with 5 significant digits in scientific notation, as torch prints 7.4541e-05.
inline std::string sci4(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4e", value);
  return buf;
}

}  // namespace ch05

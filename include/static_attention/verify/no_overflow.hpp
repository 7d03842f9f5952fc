// SPDX-License-Identifier: BSL-1.0
// verify::no_overflow: a proof that a quantized attention's integer pass overflows no int32
// accumulator and no int16 intermediate, for every int8 input. Generic over the model's members
// (verify/ does not include quant/): any type with int8 linears W_query, W_key, W_value and
// W_out (members weight, Out x In int8 codes, and bias, int32), a head_dim and a max_tokens,
// as quantized_multi_head_attention has. Worst cases from the types alone: int8 codes in
// [-128, 127], centred codes in [-255, 255], probabilities in [0, 65535] (uint16).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>

namespace static_attention::verify {

namespace detail {
inline constexpr std::int64_t int32_max = 2147483647;

/// A linear of int8 codes with int32 biases (weight: Out x In, bias: 1 x Out).
template <class L>
concept int8_linear = requires(const L& l) {
  { l.weight.elems[0] } -> std::convertible_to<std::int8_t>;
  { l.bias.elems[0] } -> std::convertible_to<std::int32_t>;
};

/// True if bias_j + sum_k w_jk x_k fits int32 for every int8 row x and channel j: the largest
/// and the smallest sums (x_k = 127 or -128 by the sign of w_jk), in int64.
template <int8_linear L>
constexpr bool linear_fits(const L& l) noexcept {
  constexpr std::size_t out = sizeof(l.bias.elems) / sizeof(l.bias.elems[0]);
  constexpr std::size_t in = sizeof(l.weight.elems) / sizeof(l.weight.elems[0]) / out;
  for (std::size_t j = 0; j < out; ++j) {
    std::int64_t hi = l.bias.elems[j], lo = l.bias.elems[j];
    for (std::size_t k = 0; k < in; ++k) {
      const std::int64_t w = l.weight.elems[j * in + k];
      hi += w >= 0 ? 127 * w : -128 * w;
      lo += w >= 0 ? -128 * w : 127 * w;
      // Every partial sum too: dot_int sums in int32 (in chunks), then adds the bias.
      if (hi - l.bias.elems[j] > int32_max || lo - l.bias.elems[j] < -int32_max - 1) return false;
    }
    if (hi > int32_max || lo < -int32_max - 1) return false;
  }
  return true;
}
}  // namespace detail

/// A quantized attention's members, as no_overflow reads them.
template <class Q>
concept quantized_attention_like = requires(const Q& q) {
  requires detail::int8_linear<decltype(q.W_query)>;
  requires detail::int8_linear<decltype(q.W_key)>;
  requires detail::int8_linear<decltype(q.W_value)>;
  requires detail::int8_linear<decltype(q.W_out)>;
  { Q::head_dim } -> std::convertible_to<std::size_t>;
  { Q::max_tokens } -> std::convertible_to<std::size_t>;
};

/// True if, for every int8 input of N rows (default: max_tokens), no int32 accumulator of the
/// integer pass overflows: the Q, K, V and output projections (every partial sum), the scores
/// (head_dim products of centred codes, |.| <= 255) and the context sums (N probabilities
/// <= 65535 times centred codes). The int16 centred codes are differences of two int8 values.
template <std::size_t N = 0, quantized_attention_like Q>
constexpr bool no_overflow(const Q& model) noexcept {
  constexpr std::size_t n = N == 0 ? Q::max_tokens : N;
  constexpr std::int64_t centred = 255;
  const bool scores = static_cast<std::int64_t>(Q::head_dim) * centred * centred <= detail::int32_max;
  const bool context = n <= static_cast<std::size_t>(detail::int32_max / (65535 * centred));
  return scores && context && detail::linear_fits(model.W_query) && detail::linear_fits(model.W_key) &&
         detail::linear_fits(model.W_value) && detail::linear_fits(model.W_out);
}

}  // namespace static_attention::verify

// SPDX-License-Identifier: BSL-1.0
// quantized_kv_cache: the int8 attention's keys and values of the tokens it has seen, as the
// centred codes (code - zero point, in [-255, 255]) its integer scores and context sums read.
#pragma once

#include <cstddef>
#include <cstdint>

#include <static_attention/core/matrix.hpp>

namespace static_attention {

/// Centred int16 key and value codes of up to Capacity tokens of D features, rows [0, length)
/// in use: what quantized_multi_head_attention keeps of a token so that later tokens attend to
/// it without recomputing it. Row p is position p (keys row-major: a score is one contiguous
/// dot product per head).
template <std::size_t Capacity, std::size_t D>
struct quantized_kv_cache {
  static_assert(Capacity > 0, "quantized_kv_cache<Capacity, D> requires Capacity > 0");
  /// The most tokens it holds.
  static constexpr std::size_t capacity = Capacity;
  /// Row p: the centred key codes of the token at position p.
  matrix<std::int16_t, Capacity, D> keys;
  /// Row p: the centred value codes of the token at position p.
  matrix<std::int16_t, Capacity, D> values;
  /// Tokens held: the next token goes to position `length`.
  std::size_t length = 0;

  /// Forgets every token (the storage is reused).
  constexpr void clear() noexcept { length = 0; }

  friend constexpr bool operator==(const quantized_kv_cache&, const quantized_kv_cache&) = default;
};

}  // namespace static_attention

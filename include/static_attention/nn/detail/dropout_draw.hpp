// SPDX-License-Identifier: BSL-1.0
// The dropout draw every dropout of the library shares, as torch 1.13's CPU bernoulli_ draws it:
// one 53-bit uniform per element.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <static_attention/core/random.hpp>

namespace static_attention::detail {

// Not constexpr: reaching it in constant evaluation reports the bad probability.
inline void dropout_probability_outside_0_1() noexcept {}

template <class T>
constexpr T checked_dropout_p(T p) noexcept {
  if (!(p >= T{0} && p <= T{1})) {
    if (std::is_constant_evaluated()) dropout_probability_outside_0_1();
    assert(false && "static_attention: dropout probability must be in [0, 1]");
    return T{0};  // never UB: an invalid probability disables dropout
  }
  return p;
}

/// One element's draw of `noise.bernoulli_(1 - p)` on torch 1.13's CPU path without MKL: a
/// 64-bit value made of two 32-bit draws (the first in the high half, as random64()), its low
/// 53 bits times 2^-53, a double in [0, 1). The element is kept when that is below 1 - p.
template <random_source G>
constexpr double dropout_uniform(G& gen) noexcept {
  const std::uint64_t hi = gen.random();
  const std::uint64_t lo = gen.random();
  return static_cast<double>(((hi << 32) | lo) & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53;
}

/// out[k] = in[k] * (1 / (1 - p)) if the k-th draw (dropout_uniform) is below 1 - p, else 0, for
/// k < count; `draws` >= count draws are taken in all (the elements of a row that a caller
/// skips still draw, so the generator advances as over the whole row). As torch's dropout:
/// 1 - p in double for the comparison, the scale 1 / (1 - p) in T, the kept value in[k] * scale.
/// p = 0 draws nothing and copies; p = 1 draws nothing and zeroes. in may equal out.
template <class T, random_source G>
constexpr void dropout_elems(const T* in, T* out, std::size_t count, std::size_t draws, T p, G& gen) noexcept {
  if (p == T{0}) {
    for (std::size_t k = 0; k < count; ++k) out[k] = in[k];
    return;
  }
  if (p == T{1}) {
    for (std::size_t k = 0; k < count; ++k) out[k] = T{};
    return;
  }
  const double keep = 1.0 - static_cast<double>(p);
  const T scale = T{1} / static_cast<T>(keep);
  for (std::size_t k = 0; k < draws; ++k) {
    const bool kept = dropout_uniform(gen) < keep;
    if (k < count) out[k] = kept ? in[k] * scale : T{0};
  }
}

}  // namespace static_attention::detail

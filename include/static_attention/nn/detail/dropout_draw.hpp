// SPDX-License-Identifier: BSL-1.0
// The dropout draw every dropout of the library shares: one 32-bit draw per element.
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

// out[k] = in[k] / (1 - p) if the k-th draw, as a 24-bit uniform in [0, 1), is below 1 - p,
// else 0, for k < count; `draws` >= count draws are taken in all (the elements of a row that a
// caller skips still draw, so the generator advances as over the whole row). p = 0 draws
// nothing and copies; p = 1 draws nothing and zeroes.
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
  const T keep = T{1} - p;
  const T scale = T{1} / keep;
  for (std::size_t k = 0; k < draws; ++k) {
    const double u = static_cast<double>(gen.random() & 0xFFFFFFu) * 0x1p-24;
    if (k < count) out[k] = u < static_cast<double>(keep) ? in[k] * scale : T{0};
  }
}

}  // namespace static_attention::detail

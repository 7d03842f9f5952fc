// SPDX-License-Identifier: BSL-1.0
// Same bits at both times: inputs, a launderer the optimiser cannot see through, and a bitwise
// comparison. Each test computes an operation in a constexpr variable (the constant evaluator's
// bits), then at run time on laundered inputs and on the constant inputs themselves (which the
// optimiser may fold), and compares every bit.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

namespace same_bits {

namespace sa = static_attention;

/// Values in about (-2, 2) with varied low bits and magnitudes (some tiny, some exact), from a
/// 32-bit LCG: deterministic, constexpr, independent of the library.
template <class M>
constexpr M inputs(std::uint32_t seed) {
  M m;
  std::uint32_t s = seed * 2654435761U + 12345U;
  using T = typename M::value_type;
  for (std::size_t k = 0; k < M::size; ++k) {
    s = s * 1664525U + 1013904223U;
    const auto mant = static_cast<std::int32_t>(s >> 8) - (1 << 23);  // [-2^23, 2^23)
    T v = static_cast<T>(mant) / static_cast<T>(1 << 22);
    if ((s & 0xf) == 0) v = v / static_cast<T>(4096);  // a few small values
    m.elems[k] = v;
  }
  return m;
}

/// A copy the optimiser must treat as unknown (each element read through a volatile).
template <class M>
M launder(const M& m) {
  M out;
  for (std::size_t k = 0; k < M::size; ++k) {
    const volatile auto* p = &m.elems[k];
    out.elems[k] = *p;
  }
  return out;
}

/// Number of elements whose bits differ.
template <class M>
constexpr std::size_t differing(const M& a, const M& b) {
  using T = typename M::value_type;
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  std::size_t n = 0;
  for (std::size_t k = 0; k < M::size; ++k) n += std::bit_cast<U>(a.elems[k]) != std::bit_cast<U>(b.elems[k]);
  return n;
}

}  // namespace same_bits

/// CHECK that the run-time results r1 (laundered inputs) and r2 (constant inputs) have the
/// bits of the constant-evaluated `expected`.
#define SAME_BITS_CHECK(expected, r1, r2)                 \
  do {                                                    \
    CHECK(::same_bits::differing((expected), (r1)) == 0); \
    CHECK(::same_bits::differing((expected), (r2)) == 0); \
  } while (false)

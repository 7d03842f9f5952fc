// SPDX-License-Identifier: BSL-1.0
// The matmul kernels on raw row-major storage: one loop nest for the constant evaluator, one
// register-blocked kernel for the CPU (kernel_simd.hpp). Both add the K products of each
// output element in the same order, k = 0, 1, ..., K-1.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <static_attention/core/detail/kernel_simd.hpp>

namespace static_attention::detail {

namespace ce {
// Constant-evaluation kernels. Their cost is what limits the shapes a static_assert accepts:
// Clang counts one step per statement evaluated (-fconstexpr-steps, default 2^20); GCC counts
// one operation per expression node evaluated (-fconstexpr-ops-limit, default 2^25) and the
// iterations of any one loop (-fconstexpr-loop-limit, default 2^18).
//
// A dot product is therefore one fold expression per chunk of up to 64 products, adding them
// left to right (the loop's order), with the strides as template arguments so every index is
// a constant: about 1/64 step per product on Clang instead of 1, and about 20 operations per
// product on GCC instead of about 38 (measured with GCC 12; see docs/performance.md).
inline constexpr std::size_t fold_chunk = 64;

// acc + a[0] b[0] + a[SA] b[SB] + ... over the chunk, left to right.
template <class T, std::size_t SA, std::size_t SB, std::size_t... Ks>
constexpr T dot_chunk(T acc, const T* a, const T* b, std::index_sequence<Ks...>) noexcept {
  return (acc + ... + (a[Ks * SA] * b[Ks * SB]));
}

// sum over k < K of a[k SA] b[k SB], in order of k.
template <class T, std::size_t K, std::size_t SA, std::size_t SB>
constexpr T dot(const T* a, const T* b) noexcept {
  if constexpr (K <= fold_chunk) {
    return dot_chunk<T, SA, SB>(T{}, a, b, std::make_index_sequence<K>{});
  } else {
    constexpr std::size_t full = K / fold_chunk;
    T acc{};
    for (std::size_t c = 0; c < full; ++c)
      acc = dot_chunk<T, SA, SB>(acc, a + c * fold_chunk * SA, b + c * fold_chunk * SB,
                                 std::make_index_sequence<fold_chunk>{});
    if constexpr (full * fold_chunk < K)
      acc = dot_chunk<T, SA, SB>(acc, a + full * fold_chunk * SA, b + full * fold_chunk * SB,
                                 std::make_index_sequence<K - full * fold_chunk>{});
    return acc;
  }
}
}  // namespace ce

/// out (R x C) = a (R x K) . b (K x C); the three must not overlap.
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T* a, const T* b, T* out) noexcept {
  if constexpr (!std::is_floating_point_v<T>) {
    // Integers and bool: one plain loop at both times. Products of small integers are promoted
    // to int, so each sum is converted back explicitly (bool: an OR of ANDs).
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) {
        T acc{};
        for (std::size_t k = 0; k < K; ++k) acc = static_cast<T>(acc + a[i * K + k] * b[k * C + j]);
        out[i * C + j] = acc;
      }
  } else if (std::is_constant_evaluated()) {
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) out[i * C + j] = ce::dot<T, K, 1, C>(a + i * K, b + j);
  } else {
    simd::matmul<T, R, K, C>(a, b, out);
  }
}

/// out (R x C) = a (R x K) . b^T where b is C x K: the product with a transposed operand,
/// Q K^T, without building the transpose in constant evaluation (both operands are read along
/// their contiguous rows). Same order of additions as matmul_kernel(a, transpose(b)).
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_abt_kernel(const T* a, const T* b, T* out) noexcept {
  if (std::is_constant_evaluated()) {
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) out[i * C + j] = ce::dot<T, K, 1, 1>(a + i * K, b + j * K);
  } else {
    simd::matmul_abt<T, R, K, C>(a, b, out);
  }
}

}  // namespace static_attention::detail

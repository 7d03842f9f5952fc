// SPDX-License-Identifier: BSL-1.0
// A part of a matrix product: the columns of out that part `part` of `parts` owns, computed as
// matmul_kernel computes them (run time only). Every kernel of kernel_simd.hpp sums each output
// element's K products in order k = 0, ..., K-1, with the build's one arithmetic (fused, or each
// product rounded on its own: kernel_multiply_add), whatever the blocking; so the parts, in any
// number, give matmul_kernel's bits.
#pragma once

#include <cstddef>

#include <static_attention/core/detail/kernel_simd.hpp>

namespace static_attention::detail {

/// Columns per block of a split product: 128 for wide products, one native vector for narrow ones.
template <class T, std::size_t C>
inline constexpr std::size_t split_columns = [] {
  constexpr std::size_t lanes = simd::native_lanes < T >> 0 ? simd::native_lanes<T> : 4;
  const std::size_t width = C >= 512 ? 128 : lanes;
  return width < C ? width : C;
}();

/// [first, last) of `units` units that part `part` of `parts` owns: contiguous, in order of part.
constexpr std::size_t part_begin(std::size_t units, std::size_t part, std::size_t parts) noexcept {
  return units * part / parts;
}

// Block q of CB columns (the last one narrower) of out (R x C) = a (R x K) . b (K x C).
template <class T, std::size_t R, std::size_t K, std::size_t C, std::size_t CB>
inline void column_block(const T* a, const T* b, T* out, std::size_t q) noexcept {
  constexpr std::size_t full = C / CB;
  if constexpr (full * CB < C) {
    if (q == full) {
      simd::gemm<T, R, K, C - full * CB, K, C, C, false>(a, b + full * CB, out + full * CB);
      return;
    }
  }
  simd::gemm<T, R, K, CB, K, C, C, false>(a, b + q * CB, out + q * CB);
}

/// out (R x C) = a (R x K) . b (K x C), only the columns of part `part` of `parts` (parts >= 1):
/// the bits matmul_kernel<T, R, K, C> gives in those columns. Few rows (a decode step): columns
/// in units of a vector, read as gemv_rows reads them; otherwise blocks of split_columns.
template <class T, std::size_t R, std::size_t K, std::size_t C>
inline void matmul_columns(const T* a, const T* b, T* out, std::size_t part, std::size_t parts) noexcept {
#if defined(__GNUC__)
  constexpr std::size_t W = simd::native_lanes<T>;
  if constexpr (W >= simd::min_lanes<T> && W > 0 && simd::use_gemv_rows<T, R, K, C>) {
    constexpr std::size_t units = (C + W - 1) / W;
    constexpr std::size_t block_cols = (16 * 1024 / sizeof(T)) / W * W;
    const std::size_t c0 = part_begin(units, part, parts) * W;
    const std::size_t u1 = part_begin(units, part + 1, parts) * W;
    const std::size_t c1 = u1 < C ? u1 : C;
    for (std::size_t j = c0; j < c1; j += block_cols)
      simd::gemv_block<T, W, R, K, K, C, C, false>(a, b + j, out + j, c1 - j < block_cols ? c1 - j : block_cols);
    return;
  }
#endif
  constexpr std::size_t CB = split_columns<T, C>;
  constexpr std::size_t blocks = (C + CB - 1) / CB;
  const std::size_t q1 = part_begin(blocks, part + 1, parts);
  for (std::size_t q = part_begin(blocks, part, parts); q < q1; ++q) column_block<T, R, K, C, CB>(a, b, out, q);
}

}  // namespace static_attention::detail

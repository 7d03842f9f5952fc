// SPDX-License-Identifier: BSL-1.0
// The order in which torch 1.13 adds the elements of a float or double tensor on the CPU
// (aten/src/ATen/native/cpu/SumKernel.cpp, AVX2 build, one thread): `cascade_sum` and its
// helpers multi_row_sum, row_sum, vectorized_inner_sum, vectorized_outer_sum, scalar_outer_sum.
// A Vectorized<float> adds lane by lane, so each lane is computed here as a scalar sum over the
// elements it holds: the same additions in the same order, hence the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace static_attention::detail::torch_sum {

// at::native::utils::CeilLog2.
constexpr std::int64_t ceil_log2(std::int64_t x) noexcept {
  if (x <= 2) return 1;
  auto v = static_cast<std::uint64_t>(x) - 1;
  std::int64_t last = 0;
  while (v != 0) {
    ++last;
    v >>= 1;
  }
  return last;
}

// multi_row_sum<acc_t, NRows>: NRows sums at once, of in[i * row_stride + k * col_stride] over
// i < size, accumulated in a cascade of 4 levels so that long sums lose little.
template <std::size_t NRows, class T>
constexpr void multi_row_sum(const T* in, std::int64_t row_stride, std::int64_t col_stride, std::int64_t size,
                             T (&out)[NRows]) noexcept {
  constexpr std::int64_t num_levels = 4;
  const std::int64_t p = ceil_log2(size) / num_levels;
  const std::int64_t level_power = p > 4 ? p : 4;
  const std::int64_t level_step = std::int64_t{1} << level_power;
  const std::int64_t level_mask = level_step - 1;
  T acc[num_levels][NRows]{};
  std::int64_t i = 0;
  while (i + level_step <= size) {
    for (std::int64_t j = 0; j < level_step; ++j, ++i)
      for (std::size_t k = 0; k < NRows; ++k)
        acc[0][k] += in[i * row_stride + static_cast<std::int64_t>(k) * col_stride];
    for (std::int64_t j = 1; j < num_levels; ++j) {
      for (std::size_t k = 0; k < NRows; ++k) {
        acc[j][k] += acc[j - 1][k];
        acc[j - 1][k] = T(0);
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (std::size_t k = 0; k < NRows; ++k) acc[0][k] += in[i * row_stride + static_cast<std::int64_t>(k) * col_stride];
  for (std::int64_t j = 1; j < num_levels; ++j)
    for (std::size_t k = 0; k < NRows; ++k) acc[0][k] += acc[j][k];
  for (std::size_t k = 0; k < NRows; ++k) out[k] = acc[0][k];
}

// row_sum: the sum of in[i * stride] over i < size, as 4 interleaved partial sums (ilp_factor).
template <class T>
constexpr T row_sum(const T* in, std::int64_t stride, std::int64_t size) noexcept {
  constexpr std::int64_t ilp = 4;
  const std::int64_t size_ilp = size / ilp;
  T partial[ilp]{};
  multi_row_sum<ilp>(in, stride * ilp, stride, size_ilp, partial);
  for (std::int64_t i = size_ilp * ilp; i < size; ++i) partial[0] += in[i * stride];
  for (std::int64_t k = 1; k < ilp; ++k) partial[0] += partial[k];
  return partial[0];
}

// Lanes of torch's Vectorized<T> in an AVX2 build: 32 bytes.
template <class T>
inline constexpr std::int64_t lanes = static_cast<std::int64_t>(32 / sizeof(T));

// The sum of n contiguous elements (one row of an inner reduction, or a whole tensor).
template <class T>
constexpr T contiguous_sum(const T* in, std::int64_t n) noexcept {
  constexpr std::int64_t L = lanes<T>;
  if (n < L) return T(0) + row_sum(in, 1, n);  // scalar_inner_sum; the output starts at 0
  // vectorized_inner_sum: row_sum over n / L vectors, each lane on its own, then the tail, then
  // the lanes in order.
  const std::int64_t vec_size = n / L;
  T lane_sum[static_cast<std::size_t>(L)]{};
  for (std::int64_t l = 0; l < L; ++l) lane_sum[static_cast<std::size_t>(l)] = row_sum(in + l, L, vec_size);
  T final_acc = 0;
  for (std::int64_t k = vec_size * L; k < n; ++k) final_acc += in[k];
  for (std::size_t l = 0; l < static_cast<std::size_t>(L); ++l) final_acc += lane_sum[l];
  return T(0) + final_acc;
}

// The sums over the first dimension of a rows x cols row-major block (an outer reduction):
// out[j] = sum over i of in[i * cols + j], in torch's order for column j.
template <class T>
constexpr void outer_sums(const T* in, std::int64_t rows, std::int64_t cols, T* out) noexcept {
  constexpr std::int64_t L = lanes<T>;
  // vectorized_outer_sum takes blocks of 4 vectors through multi_row_sum, then single vectors
  // and single columns through row_sum; scalar_outer_sum (fewer columns than a vector) blocks
  // of 4 columns, then single ones. Lane by lane, both come down to one of two orders per column.
  const std::int64_t block = cols >= L ? 4 * L : 4;
  const std::int64_t cascaded = cols / block * block;
  for (std::int64_t j = 0; j < cols; ++j) {
    T s[1]{};
    if (j < cascaded)
      multi_row_sum<1>(in + j, cols, 0, rows, s);
    else
      s[0] = row_sum(in + j, cols, rows);
    out[j] = T(0) + s[0];
  }
}

}  // namespace static_attention::detail::torch_sum

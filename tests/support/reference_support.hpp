// SPDX-License-Identifier: BSL-1.0
// Turns generated reference arrays (row-major doubles) into matrices and tensors.
#pragma once

#include <cstddef>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

namespace test_support {

template <class T, std::size_t R, std::size_t C>
constexpr static_attention::matrix<T, R, C> to_matrix(const double (&values)[R * C]) {
  static_attention::matrix<T, R, C> m;
  for (std::size_t k = 0; k < R * C; ++k) m.elems[k] = static_cast<T>(values[k]);
  return m;
}

template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr static_attention::tensor<T, B, N, D> to_tensor(const double (&values)[B * N * D]) {
  static_attention::tensor<T, B, N, D> t;
  for (std::size_t k = 0; k < B * N * D; ++k) t.elems[k] = static_cast<T>(values[k]);
  return t;
}

}  // namespace test_support

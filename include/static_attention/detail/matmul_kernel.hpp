// The matmul kernel on raw row-major storage: one loop nest for the constant evaluator, one
// for the CPU. Both add the K products of each output element in the same order.
#pragma once

#include <cstddef>
#include <type_traits>

namespace static_attention::detail {

/// out (R x C) = a (R x K) . b (K x C); the three must not overlap.
template <class T, std::size_t R, std::size_t K, std::size_t C>
constexpr void matmul_kernel(const T* a, const T* b, T* out) noexcept {
  if (std::is_constant_evaluated()) {
    // Direct indexing on raw storage keeps the constant evaluator fast.
    for (std::size_t i = 0; i < R; ++i) {
      for (std::size_t j = 0; j < C; ++j) {
        T acc{};
        for (std::size_t k = 0; k < K; ++k) acc += a[i * K + k] * b[k * C + j];
        out[i * C + j] = acc;
      }
    }
  } else {
    // i-k-j order: the innermost loop runs along contiguous rows of b and out, so it vectorises.
    for (std::size_t i = 0; i < R; ++i) {
      T* o = out + i * C;
      for (std::size_t j = 0; j < C; ++j) o[j] = T{};
      for (std::size_t k = 0; k < K; ++k) {
        const T aik = a[i * K + k];
        const T* bk = b + k * C;
        for (std::size_t j = 0; j < C; ++j) o[j] += aik * bk[j];
      }
    }
  }
}

}  // namespace static_attention::detail

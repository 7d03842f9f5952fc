// Scaled dot-product attention on one sequence, the step every module shares.
#pragma once

#include <cstddef>

#include <static_attention/dropout.hpp>
#include <static_attention/masking.hpp>
#include <static_attention/math.hpp>
#include <static_attention/matmul.hpp>
#include <static_attention/softmax.hpp>

namespace static_attention::detail {

/// No dropout: evaluation mode.
struct no_dropout {
  template <class M>
  constexpr const M& operator()(const M& weights) const noexcept {
    return weights;
  }
};

/// Training-mode dropout with probability p, drawing from gen.
template <class T, class G>
struct dropout_with {
  T p;
  G* gen;
  template <class M>
  constexpr M operator()(const M& weights) const noexcept {
    return dropout(weights, p, *gen);
  }
};

/// 1 / sqrt(d_k) applied as a division by sqrt(d_k), as the chapter writes it.
template <class T, std::size_t Dk>
constexpr T sqrt_dk() noexcept {
  return static_cast<T>(static_attention::sqrt(static_cast<double>(Dk)));
}

/// softmax(q k^T / sqrt(d_k)), with the future masked when Causal.
template <bool Causal, class T, std::size_t N, std::size_t Dk>
constexpr matrix<T, N, N> attn_weights(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys) noexcept {
  auto scores = matmul(queries, transpose(keys)) / sqrt_dk<T, Dk>();
  if constexpr (Causal) scores = mask_future(scores);
  return softmax(scores);
}

/// dropout(attn_weights) . values.
template <bool Causal, class T, std::size_t N, std::size_t Dk, std::size_t Dv, class Drop>
constexpr matrix<T, N, Dv> attend(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys,
                                  const matrix<T, N, Dv>& values, const Drop& drop) noexcept {
  return matmul(drop(attn_weights<Causal>(queries, keys)), values);
}

}  // namespace static_attention::detail

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
///
/// One buffer, no temporaries: q k^T straight from the rows of q and k (no transpose), then
/// scaled and softmaxed in place. Same values, in both worlds, as
/// softmax(mask_future(matmul(q, transpose(k)) / sqrt_dk)): a masked score is -inf, whose
/// weight is exactly 0, so a causal row i is the softmax of its first i + 1 scores followed by
/// zeros (NaN throughout when those scores hold NaN or +inf, as PyTorch gives).
template <bool Causal, class T, std::size_t N, std::size_t Dk>
constexpr matrix<T, N, N> attn_weights(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys) noexcept {
  constexpr T scale = sqrt_dk<T, Dk>();
  matrix<T, N, N> weights;
  T* scores = weights.elems;
  matmul_abt_kernel<T, N, Dk, N>(queries.elems, keys.elems, scores);
  if constexpr (Causal) {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j <= i; ++j) scores[i * N + j] /= scale;
  } else {
    for (std::size_t k = 0; k < N * N; ++k) scores[k] /= scale;
  }
  softmax_rows<T, Causal>(scores, scores, N, N);
  return weights;
}

/// dropout(attn_weights) . values.
template <bool Causal, class T, std::size_t N, std::size_t Dk, std::size_t Dv, class Drop>
constexpr matrix<T, N, Dv> attend(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys,
                                  const matrix<T, N, Dv>& values, const Drop& drop) noexcept {
  return matmul(drop(attn_weights<Causal>(queries, keys)), values);
}

}  // namespace static_attention::detail

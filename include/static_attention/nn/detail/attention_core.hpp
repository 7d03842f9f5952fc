// SPDX-License-Identifier: BSL-1.0
// Scaled dot-product attention on one sequence, the step every module shares.
#pragma once

#include <cstddef>

#include <static_attention/core/masking.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matmul.hpp>
#include <static_attention/core/softmax.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/dropout_draw.hpp>

namespace static_attention::detail {

/// No dropout: evaluation mode.
struct no_dropout {
  template <class M>
  constexpr const M& operator()(const M& weights) const noexcept {
    return weights;
  }
  /// One row of causal weights: nothing to do.
  template <class T>
  constexpr void row(T*, std::size_t, std::size_t) const noexcept {}
};

/// Training-mode dropout with probability p, drawing from gen.
template <class T, class G>
struct dropout_with {
  T p;
  G* gen;
  template <class M>
  constexpr M operator()(const M& weights) const noexcept {
    M out;
    dropout_elems(weights.elems, out.elems, M::size, M::size, p, *gen);
    return out;
  }
  /// One row of causal weights: the `seen` first of a row of `width`, all of whose draws are taken.
  constexpr void row(T* weights, std::size_t seen, std::size_t width) const noexcept {
    dropout_elems(weights, weights, seen, width, p, *gen);
  }
};

/// The calls every attention module with dropout offers, on top of its
/// `forward(x, drop)`: one sequence or a batch, evaluation or training mode (dropout drawn from
/// gen; batch items draw in order). Derived befriends it.
template <class Derived, class T, std::size_t DOut>
struct attention_calls {
  /// Evaluation mode (no dropout), one sequence: N x d_in -> N x d_out.
  template <class U, std::size_t N, std::size_t D>
  constexpr matrix<T, N, DOut> operator()(const matrix<U, N, D>& x) const noexcept {
    return self().forward(x, no_dropout{});
  }
  /// Training mode: dropout on the attention weights, drawing from gen.
  template <class U, std::size_t N, std::size_t D, random_source G>
  constexpr matrix<T, N, DOut> operator()(const matrix<U, N, D>& x, G& gen) const noexcept {
    return self().forward(x, dropout_with<T, G>{self().dropout_p, &gen});
  }
  /// Evaluation mode for a batch: B x N x d_in -> B x N x d_out.
  template <class U, std::size_t B, std::size_t N, std::size_t D>
  constexpr tensor<T, B, N, DOut> operator()(const tensor<U, B, N, D>& x) const noexcept {
    return per_item(x, self());
  }
  /// Training mode for a batch; batch items draw from gen in order.
  template <class U, std::size_t B, std::size_t N, std::size_t D, random_source G>
  constexpr tensor<T, B, N, DOut> operator()(const tensor<U, B, N, D>& x, G& gen) const noexcept {
    return per_item(x, with_generator<Derived, G>{&self(), &gen});
  }

 private:
  constexpr const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
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
constexpr void attn_scores_into(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys, T* scores) noexcept {
  constexpr T scale = sqrt_dk<T, Dk>();
  matmul_abt_kernel<T, N, Dk, N>(queries.elems, keys.elems, scores);
  if constexpr (Causal) {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j <= i; ++j) scores[i * N + j] /= scale;
  } else {
    for (std::size_t k = 0; k < N * N; ++k) scores[k] /= scale;
  }
}

// Scores of a few tokens whose N N is no whole number of vectors (AVX and AVX-512): at run
// time they are built in a buffer rounded up to whole vectors, zeros past the scores, so the
// softmax's exp is one call over whole vectors (the chapter's 6 x 6 float with AVX-512: 36 ->
// 48 values) instead of two; then copied out. Elsewhere (16-byte vectors, Cortex-M) no buffer.
template <class T, std::size_t N>
inline constexpr std::size_t padded_scores = [] {
  constexpr std::size_t cells = N * N;
  if constexpr (simd::native_bytes < 32) {
    return std::size_t{0};
  } else {
    constexpr std::size_t lanes = simd::native_bytes / sizeof(T);
    return cells % lanes != 0 && cells <= 256 ? (cells + lanes - 1) / lanes * lanes : 0;
  }
}();

template <bool Causal, class T, std::size_t N, std::size_t Dk>
constexpr matrix<T, N, N> attn_weights(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys) noexcept {
  matrix<T, N, N> weights;
  constexpr std::size_t room = padded_scores<T, N>;
  if constexpr (room > 0) {
    if (!std::is_constant_evaluated()) {
      T scores[room];
      for (std::size_t k = N * N; k < room; ++k) scores[k] = T{0};
      attn_scores_into<Causal>(queries, keys, scores);
      softmax_rows_in_room<T, Causal>(scores, N, N, room);
      __builtin_memcpy(weights.elems, scores, sizeof(weights.elems));
      return weights;
    }
  }
  attn_scores_into<Causal>(queries, keys, weights.elems);
  softmax_rows<T, Causal>(weights.elems, weights.elems, N, N);
  return weights;
}

/// dropout(attn_weights) . values.
template <bool Causal, class T, std::size_t N, std::size_t Dk, std::size_t Dv, class Drop>
constexpr matrix<T, N, Dv> attend(const matrix<T, N, Dk>& queries, const matrix<T, N, Dk>& keys,
                                  const matrix<T, N, Dv>& values, const Drop& drop) noexcept {
  return matmul(drop(attn_weights<Causal>(queries, keys)), values);
}

}  // namespace static_attention::detail

// SPDX-License-Identifier: BSL-1.0
// Simplified attention, the chapter's first step: no trainable weights.
//   attn_scores = x x^T (N x N), attn_weights = softmax(attn_scores), context = attn_weights x.
#pragma once

#include <cstddef>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/matmul.hpp>
#include <static_attention/core/softmax.hpp>

namespace static_attention {

/// Dot products of every token with every token: x . x^T, (N x d) -> (N x N).
template <class T, std::size_t N, std::size_t D>
constexpr matrix<T, N, N> attention_scores(const matrix<T, N, D>& x) noexcept {
  return matmul(x, transpose(x));
}

/// Row-wise softmax of attention_scores(x): row i says how much token i attends to each token.
template <class T, std::size_t N, std::size_t D>
constexpr matrix<T, N, N> attention_weights(const matrix<T, N, D>& x) noexcept {
  return softmax(attention_scores(x));
}

/// All context vectors at once: attention_weights(x) . x, (N x d) -> (N x d).
/// Row i of the weights produces row i of the result: a matrix product moves no row.
template <class T, std::size_t N, std::size_t D>
constexpr matrix<T, N, D> context_vectors(const matrix<T, N, D>& x) noexcept {
  return matmul(attention_weights(x), x);
}

namespace detail {
struct context_vectors_fn {
  template <class M>
  constexpr auto operator()(const M& item) const noexcept {
    return context_vectors(item);
  }
};
}  // namespace detail

/// context_vectors for every batch item.
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr tensor<T, B, N, D> context_vectors(const tensor<T, B, N, D>& x) noexcept {
  return detail::per_item(x, detail::context_vectors_fn{});
}

/// The per-token route for token i: z_i = sum_j alpha_ij x_j, where alpha_i = softmax of the
/// dot products x_i . x_j. It builds one context vector without any matrix product, as the
/// chapter does before batching; it must agree with row(context_vectors(x), i).
template <class T, std::size_t N, std::size_t D>
constexpr matrix<T, 1, D> context_vector(const matrix<T, N, D>& x, std::size_t i) noexcept {
  detail::check_index<N>(i);
  matrix<T, 1, N> scores;
  for (std::size_t j = 0; j < N; ++j) {
    T dot{};
    for (std::size_t k = 0; k < D; ++k) dot += detail::rounded_product(x.elems[i * D + k], x.elems[j * D + k]);
    scores.elems[j] = dot;
  }
  const matrix<T, 1, N> alpha = softmax(scores);
  matrix<T, 1, D> z;
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t k = 0; k < D; ++k) z.elems[k] += detail::rounded_product(alpha.elems[j], x.elems[j * D + k]);
  return z;
}

}  // namespace static_attention

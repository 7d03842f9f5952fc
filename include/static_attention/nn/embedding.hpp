// SPDX-License-Identifier: BSL-1.0
// embedding<T, Vocab, D>: nn.Embedding, a lookup table from ids to rows.
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>

#include <static_attention/core/detail/index_check.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>
#include <static_attention/nn/token_ids.hpp>

namespace static_attention {

/// nn.Embedding(Vocab, D): row `id` of a Vocab x D table for each id. An id outside
/// [0, Vocab) is a compile error in constant evaluation; at run time, in every build, it reads
/// nothing and gives a row of NaN, never a plausible row (check_ids() reports it as an error
/// value before the call).
template <class T, std::size_t Vocab, std::size_t D>
struct embedding {
  static_assert(detail::check_attention_element<T>());

  /// The element type.
  using value_type = T;
  /// Number of rows (ids) and features per row.
  static constexpr std::size_t num_embeddings = Vocab;
  static constexpr std::size_t embedding_dim = D;

  /// Vocab x D, PyTorch's layout (`weight[id]` is the row of id).
  matrix<T, Vocab, D> weight;

  /// The rows of ids, in order: N ids -> N x D.
  template <token_id I, std::size_t N>
  constexpr matrix<T, N, D> operator()(const std::array<I, N>& ids) const noexcept {
    matrix<T, N, D> out;
    for (std::size_t i = 0; i < N; ++i) copy_row(ids[i], out.elems + i * D);
    return out;
  }

  /// Rows for a batch of id sequences: B x N ids -> B x N x D.
  template <token_id I, std::size_t B, std::size_t N>
  constexpr tensor<T, B, N, D> operator()(const matrix<I, B, N>& ids) const noexcept {
    tensor<T, B, N, D> out;
    for (std::size_t k = 0; k < B * N; ++k) copy_row(ids.elems[k], out.elems + k * D);
    return out;
  }

  /// The rows of ids first, first + 1, ..., first + N - 1 (`weight[arange(N)]`, positions).
  template <std::size_t N>
  constexpr matrix<T, N, D> rows(std::size_t first = 0) const noexcept {
    matrix<T, N, D> out;
    for (std::size_t i = 0; i < N; ++i) copy_row(first + i, out.elems + i * D);
    return out;
  }

 private:
  template <class I>
  constexpr void copy_row(I id, T* out) const noexcept {
    const auto row = static_cast<std::size_t>(id);  // a negative id wraps to a huge one
    if (!detail::in_vocabulary<Vocab>(id)) {
      if (std::is_constant_evaluated()) detail::check_index<Vocab>(row);  // the error, naming id and Vocab
      for (std::size_t j = 0; j < D; ++j) out[j] = std::numeric_limits<T>::quiet_NaN();
      return;
    }
    for (std::size_t j = 0; j < D; ++j) out[j] = weight.elems[row * D + j];
  }
};

}  // namespace static_attention

// embedding<T, Vocab, D>: nn.Embedding, a lookup table from ids to rows.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>

#include <static_attention/detail/attention_checks.hpp>
#include <static_attention/detail/index_check.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/tensor.hpp>

namespace static_attention {

/// An id type: any integer type but bool.
template <class I>
concept token_id = std::integral<I> && !std::same_as<I, bool>;

/// nn.Embedding(Vocab, D): row `id` of a Vocab x D table for each id. An id outside
/// [0, Vocab) is a compile error in constant evaluation and an assertion at run time.
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
    detail::check_index<Vocab>(row);
    if (row < Vocab)
      for (std::size_t j = 0; j < D; ++j) out[j] = weight.elems[row * D + j];
  }
};

}  // namespace static_attention

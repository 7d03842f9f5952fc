// SPDX-License-Identifier: BSL-1.0
// layer_norm<T, D>: the book's LayerNorm over the last dimension.
#pragma once

#include <cstddef>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/attention_checks.hpp>

namespace static_attention {

/// The book's LayerNorm(emb_dim): each row is normalised to mean 0 and (biased) variance 1,
/// then scaled and shifted: `scale * (x - mean) / sqrt(var + eps) + shift`, eps = 1e-5.
///
/// The mean and the variance are taken left to right; every product is rounded on its own, so
/// both worlds give the same bits. A default-constructed layer_norm has zero scale (all zeros,
/// so a static model lands in .bss); init_like_torch sets PyTorch's ones and zeros.
template <class T, std::size_t D>
struct layer_norm {
  static_assert(detail::check_attention_element<T>());

  /// The element type.
  using value_type = T;
  /// Features in and out, for shape folds over a model (model.hpp).
  static constexpr std::size_t in_features = D;
  static constexpr std::size_t out_features = D;
  /// The longest sequence it takes: any.
  static constexpr std::size_t max_tokens = no_context_limit;
  /// The book's eps, as PyTorch adds it to a tensor of T.
  static constexpr T eps = static_cast<T>(1e-5);

  /// Multiplies each normalised feature (PyTorch: ones).
  matrix<T, 1, D> scale;
  /// Added after scaling (PyTorch: zeros).
  matrix<T, 1, D> shift;

  /// Normalises each of the N rows: N x D -> N x D.
  template <class U, std::size_t N, std::size_t C>
  constexpr matrix<T, N, D> operator()(const matrix<U, N, C>& x) const noexcept {
    matrix<T, N, D> y;
    if constexpr (detail::input_fits<T, D, no_context_limit, U, N, C>())
      for (std::size_t i = 0; i < N; ++i) normalize_row(x.elems + i * D, y.elems + i * D);
    return y;
  }

  /// Each row of each batch item.
  template <class U, std::size_t B, std::size_t N, std::size_t C>
  constexpr tensor<T, B, N, D> operator()(const tensor<U, B, N, C>& x) const noexcept {
    return detail::per_item(x, *this);
  }

  /// One row of D values, from x into y (caller-owned storage; x == y is allowed).
  constexpr void normalize_row(const T* x, T* y) const noexcept {
    T total{};
    for (std::size_t j = 0; j < D; ++j) total += x[j];
    const T mean = total / static_cast<T>(D);
    T squares{};
    for (std::size_t j = 0; j < D; ++j) squares += detail::rounded_product(x[j] - mean, x[j] - mean);
    const T var = squares / static_cast<T>(D);
    const T denom = static_attention::sqrt(var + eps);
    for (std::size_t j = 0; j < D; ++j)
      y[j] = detail::rounded_product(scale.elems[j], (x[j] - mean) / denom) + shift.elems[j];
  }
};

}  // namespace static_attention

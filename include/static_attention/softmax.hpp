// softmax over the last dimension: the stable form the library uses, and the chapter's naive one.
#pragma once

#include <cstddef>
#include <limits>

#include <static_attention/math.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/shape_rules.hpp>
#include <static_attention/tensor.hpp>

namespace static_attention {

namespace detail {

template <class M>
constexpr void check_softmax_element() noexcept {
  static_assert(is_floating_element<value_type_t<M>>,
                "softmax(m) requires a floating-point element type (float or double)");
}

// Stable softmax of `rows` contiguous rows of `cols` values. Rows are written only from their
// own inputs, so in and out may be the same storage.
//
// At run time the loops have no early exits and exp goes through the array overload, so all
// of them vectorise; exp's array overload gives the scalar one's bits, so the two worlds
// still agree.
template <class T>
constexpr void softmax_rows(const T* in, T* out, std::size_t rows, std::size_t cols) noexcept {
  constexpr T inf = std::numeric_limits<T>::infinity();
  for (std::size_t i = 0; i < rows; ++i) {
    const T* x = in + i * cols;
    T* y = out + i * cols;
    T row_max = -inf;
    bool has_nan = false;
    if (std::is_constant_evaluated()) {
      for (std::size_t j = 0; j < cols; ++j) {
        has_nan = has_nan || x[j] != x[j];
        if (x[j] > row_max) row_max = x[j];
      }
    } else {
      for (std::size_t j = 0; j < cols; ++j) {
        has_nan |= x[j] != x[j];
        row_max = x[j] > row_max ? x[j] : row_max;
      }
    }
    // +inf or NaN in a row makes PyTorch's row NaN; say so without computing inf - inf, which
    // the constant evaluator rejects.
    if (has_nan || row_max == inf) {
      for (std::size_t j = 0; j < cols; ++j) y[j] = std::numeric_limits<T>::quiet_NaN();
      continue;
    }
    // A fully masked row attends to nothing: zeros, where PyTorch would give NaN.
    if (row_max == -inf) {
      for (std::size_t j = 0; j < cols; ++j) y[j] = T{0};
      continue;
    }
    T total{};
    if (std::is_constant_evaluated()) {
      for (std::size_t j = 0; j < cols; ++j) {
        const T e = static_attention::exp(x[j] - row_max);  // exp(-inf) is exactly 0
        y[j] = e;
        total += e;
      }
    } else {
      for (std::size_t j = 0; j < cols; ++j) y[j] = x[j] - row_max;
      static_attention::exp(std::span<const T>{y, cols}, std::span<T>{y, cols});
      for (std::size_t j = 0; j < cols; ++j) total += y[j];
    }
    for (std::size_t j = 0; j < cols; ++j) y[j] /= total;  // total >= 1: the max contributes 1
  }
}

}  // namespace detail

/// Softmax over the last dimension (each row of a matrix, each row of every batch item),
/// as `torch.softmax(m, dim=-1)`. Numerically stable: the row maximum is subtracted before
/// exp, so scores of +-1e4 neither overflow nor give NaN. Entries at -inf get exactly 0.
/// A row that is entirely -inf gives all zeros (PyTorch gives NaN): a fully masked query
/// attends to nothing. A row holding NaN or +inf gives NaN, as in PyTorch.
template <dense M>
constexpr M softmax(const M& m) noexcept {
  detail::check_softmax_element<M>();
  M out;
  if constexpr (is_floating_element<value_type_t<M>>)
    detail::softmax_rows(m.elems, out.elems, M::size / cols_v<M>, cols_v<M>);
  return out;
}

/// The chapter's first softmax: exp(x) / sum(exp(x)) with no max subtraction. It overflows:
/// once exp(x) is +inf (x > 88.72 for float, x > 709.78 for double) the row becomes
/// inf / inf, NaN at run time and not a constant expression at compile time. Use softmax().
template <dense M>
constexpr M softmax_naive(const M& m) noexcept {
  detail::check_softmax_element<M>();
  M out;
  if constexpr (is_floating_element<value_type_t<M>>) {
    constexpr std::size_t cols = cols_v<M>;
    for (std::size_t i = 0; i < M::size / cols; ++i) {
      value_type_t<M> total{};
      for (std::size_t j = 0; j < cols; ++j) total += static_attention::exp(m.elems[i * cols + j]);
      for (std::size_t j = 0; j < cols; ++j)
        out.elems[i * cols + j] = static_attention::exp(m.elems[i * cols + j]) / total;
    }
  }
  return out;
}

}  // namespace static_attention

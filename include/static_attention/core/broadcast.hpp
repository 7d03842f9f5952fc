// SPDX-License-Identifier: BSL-1.0
// Broadcasting beyond elementwise.hpp's rows, as PyTorch broadcasts:
//  * a column: an R x 1 matrix against an R x C matrix, a B x N x 1 tensor against a B x N x D
//    one, on either side (the book's `(x - mean) / torch.sqrt(var + eps)` with keepdim=True);
//  * a vector<T, C> as a row over an R x C matrix (torch broadcasts a 1-d tensor that way);
//  * vectors and scalars of rank.hpp: vector op vector, vector op scalar<T>, vector op T.
// The result has the larger shape; + - * / round each operation alone, as elementwise.hpp does.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/rank.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// An R2 x 1 column broadcasts over an R x C matrix when R2 == R or R2 == 1:
/// `column_broadcast_fits<6, 2>` is false (a column of 2 rows over a matrix of 6).
template <std::size_t R, std::size_t R2>
inline constexpr bool column_broadcast_fits = R2 == R || R2 == 1;

namespace detail {

// a op column (ColumnOnLeft: column op a), the column repeated along every row.
template <class Op, bool ColumnOnLeft, class T, std::size_t Lines, std::size_t C>
constexpr void broadcast_column(const T* a, const T* column, std::size_t column_lines, T* out) noexcept {
  for (std::size_t i = 0; i < Lines; ++i) {
    const T c = column[column_lines == 1 ? 0 : i];
    for (std::size_t j = 0; j < C; ++j) out[i * C + j] = ColumnOnLeft ? Op{}(c, a[i * C + j]) : Op{}(a[i * C + j], c);
  }
}

template <class Op, bool ColumnOnLeft, class T, std::size_t R, std::size_t C, std::size_t R2>
constexpr matrix<T, R, C> matrix_column(const matrix<T, R, C>& a, const matrix<T, R2, 1>& column) noexcept {
  static_assert(column_broadcast_fits<R, R2>,
                "a op column and column op a broadcast an R x 1 column along every row of an R x C matrix, and "
                "require rows(column) == rows(a)");
  matrix<T, R, C> out;
  if constexpr (column_broadcast_fits<R, R2>)
    broadcast_column<Op, ColumnOnLeft, T, R, C>(a.elems, column.elems, R2, out.elems);
  return out;
}

template <class Op, bool ColumnOnLeft, class T, std::size_t B, std::size_t N, std::size_t D, std::size_t B2,
          std::size_t N2>
constexpr tensor<T, B, N, D> tensor_column(const tensor<T, B, N, D>& a, const tensor<T, B2, N2, 1>& column) noexcept {
  static_assert(B2 == B && N2 == N,
                "a op column and column op a broadcast a B x N x 1 tensor along the last dimension of a B x N x D "
                "tensor, and require equal B and N");
  tensor<T, B, N, D> out;
  if constexpr (B2 == B && N2 == N)
    broadcast_column<Op, ColumnOnLeft, T, B * N, D>(a.elems, column.elems, B * N, out.elems);
  return out;
}

template <class Op, bool RowOnLeft, class T, std::size_t R, std::size_t C>
constexpr matrix<T, R, C> matrix_vector(const matrix<T, R, C>& a, const vector<T, C>& v) noexcept {
  matrix<T, R, C> out;
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j)
      out.elems[i * C + j] = RowOnLeft ? Op{}(v.elems[j], a.elems[i * C + j]) : Op{}(a.elems[i * C + j], v.elems[j]);
  return out;
}

template <class Op, class T, std::size_t N>
constexpr vector<T, N> vector_op(const vector<T, N>& a, const vector<T, N>& b) noexcept {
  vector<T, N> out;
  for (std::size_t k = 0; k < N; ++k) out.elems[k] = Op{}(a.elems[k], b.elems[k]);
  return out;
}

template <class Op, bool ValueOnLeft, class T, std::size_t N>
constexpr vector<T, N> vector_value(const vector<T, N>& a, T value) noexcept {
  vector<T, N> out;
  for (std::size_t k = 0; k < N; ++k) out.elems[k] = ValueOnLeft ? Op{}(value, a.elems[k]) : Op{}(a.elems[k], value);
  return out;
}

}  // namespace detail

// The operators below are generated per operator by one macro each, so that + - * / state the
// same rule once; the macros are undefined at the end of the header.
#define SA_DETAIL_BROADCAST_OPERATORS(op, op_type)                                                                     \
  /** a op column: an R2 x 1 column (R2 == R or 1) along every row of an R x C matrix. */                              \
  template <class T, std::size_t R, std::size_t C, std::size_t R2>                                                     \
  constexpr matrix<T, R, C> operator op(const matrix<T, R, C>& a, const matrix<T, R2, 1>& column) noexcept {           \
    return detail::matrix_column<detail::op_type, false>(a, column);                                                   \
  }                                                                                                                    \
  /** column op a, for an R x C matrix with C > 1. */                                                                  \
  template <class T, std::size_t R, std::size_t C, std::size_t R2>                                                     \
  requires(C > 1) constexpr matrix<T, R, C> operator op(const matrix<T, R2, 1>& column,                                \
                                                        const matrix<T, R, C>& a) noexcept {                           \
    return detail::matrix_column<detail::op_type, true>(a, column);                                                    \
  }                                                                                                                    \
  /** a op column: a B x N x 1 tensor along the last dimension of a B x N x D tensor. */                               \
  template <class T, std::size_t B, std::size_t N, std::size_t D, std::size_t B2, std::size_t N2>                      \
  constexpr tensor<T, B, N, D> operator op(const tensor<T, B, N, D>& a, const tensor<T, B2, N2, 1>& column) noexcept { \
    return detail::tensor_column<detail::op_type, false>(a, column);                                                   \
  }                                                                                                                    \
  /** column op a, for a B x N x D tensor with D > 1. */                                                               \
  template <class T, std::size_t B, std::size_t N, std::size_t D, std::size_t B2, std::size_t N2>                      \
  requires(D > 1) constexpr tensor<T, B, N, D> operator op(const tensor<T, B2, N2, 1>& column,                         \
                                                           const tensor<T, B, N, D>& a) noexcept {                     \
    return detail::tensor_column<detail::op_type, true>(a, column);                                                    \
  }                                                                                                                    \
  /** a op v: a vector of C elements as a row over every row of an R x C matrix. */                                    \
  template <class T, std::size_t R, std::size_t C>                                                                     \
  constexpr matrix<T, R, C> operator op(const matrix<T, R, C>& a, const vector<T, C>& v) noexcept {                    \
    return detail::matrix_vector<detail::op_type, false>(a, v);                                                        \
  }                                                                                                                    \
  /** v op a, the vector as a row. */                                                                                  \
  template <class T, std::size_t R, std::size_t C>                                                                     \
  constexpr matrix<T, R, C> operator op(const vector<T, C>& v, const matrix<T, R, C>& a) noexcept {                    \
    return detail::matrix_vector<detail::op_type, true>(a, v);                                                         \
  }                                                                                                                    \
  /** Element-wise, on vectors of one length. */                                                                       \
  template <class T, std::size_t N>                                                                                    \
  constexpr vector<T, N> operator op(const vector<T, N>& a, const vector<T, N>& b) noexcept {                          \
    return detail::vector_op<detail::op_type>(a, b);                                                                   \
  }                                                                                                                    \
  /** A vector and a 0-d tensor (torch's `v / v.sum()`), or a value. */                                                \
  template <class T, std::size_t N>                                                                                    \
  constexpr vector<T, N> operator op(const vector<T, N>& a, const scalar<T>& s) noexcept {                             \
    return detail::vector_value<detail::op_type, false>(a, s.item());                                                  \
  }                                                                                                                    \
  template <class T, std::size_t N>                                                                                    \
  constexpr vector<T, N> operator op(const scalar<T>& s, const vector<T, N>& a) noexcept {                             \
    return detail::vector_value<detail::op_type, true>(a, s.item());                                                   \
  }                                                                                                                    \
  template <class T, std::size_t N>                                                                                    \
  constexpr vector<T, N> operator op(const vector<T, N>& a, std::type_identity_t<T> value) noexcept {                  \
    return detail::vector_value<detail::op_type, false>(a, value);                                                     \
  }                                                                                                                    \
  template <class T, std::size_t N>                                                                                    \
  constexpr vector<T, N> operator op(std::type_identity_t<T> value, const vector<T, N>& a) noexcept {                  \
    return detail::vector_value<detail::op_type, true>(a, value);                                                      \
  }

SA_DETAIL_BROADCAST_OPERATORS(+, plus_op)
SA_DETAIL_BROADCAST_OPERATORS(-, minus_op)
SA_DETAIL_BROADCAST_OPERATORS(*, multiplies_op)
SA_DETAIL_BROADCAST_OPERATORS(/, divides_op)
#undef SA_DETAIL_BROADCAST_OPERATORS

}  // namespace static_attention

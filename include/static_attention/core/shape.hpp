// SPDX-License-Identifier: BSL-1.0
// Shape queries: every dimension of a matrix or tensor is a compile-time constant.
#pragma once

#include <cstddef>
#include <type_traits>

#include <boost/hana/integral_constant.hpp>

namespace static_attention {

template <class T, std::size_t Rows, std::size_t Cols>
struct matrix;
template <class T, std::size_t B, std::size_t N, std::size_t D>
struct tensor;

namespace detail {
template <class M>
inline constexpr bool is_matrix = false;
template <class T, std::size_t R, std::size_t C>
inline constexpr bool is_matrix<matrix<T, R, C>> = true;
template <class M>
inline constexpr bool is_tensor = false;
template <class T, std::size_t B, std::size_t N, std::size_t D>
inline constexpr bool is_tensor<tensor<T, B, N, D>> = true;
}  // namespace detail

/// A `matrix<T, Rows, Cols>` (cv-ref qualifiers ignored).
template <class M>
concept matrix_type = detail::is_matrix<std::remove_cvref_t<M>>;

/// A `tensor<T, B, N, D>` (cv-ref qualifiers ignored).
template <class M>
concept tensor_type = detail::is_tensor<std::remove_cvref_t<M>>;

/// A matrix or a tensor: contiguous, row-major, fixed-shape storage of `value_type`.
template <class M>
concept dense = matrix_type<M> || tensor_type<M>;

/// Rows of a matrix; for a tensor, rows (tokens) of each batch item.
template <dense M>
inline constexpr std::size_t rows_v = std::remove_cvref_t<M>::rows();
/// Columns of a matrix; for a tensor, the last dimension (features).
template <dense M>
inline constexpr std::size_t cols_v = std::remove_cvref_t<M>::cols();
/// Batch size of a tensor.
template <tensor_type M>
inline constexpr std::size_t batch_v = std::remove_cvref_t<M>::batch();

/// The same queries as Hana integral constants, for compile-time sequences and folds.
template <dense M>
inline constexpr auto rows_c = boost::hana::size_c<rows_v<M>>;
template <dense M>
inline constexpr auto cols_c = boost::hana::size_c<cols_v<M>>;
template <tensor_type M>
inline constexpr auto batch_c = boost::hana::size_c<batch_v<M>>;

/// Element type of a matrix or tensor.
template <dense M>
using value_type_t = typename std::remove_cvref_t<M>::value_type;

/// Two operands of one element type and one shape: the rule of every element-wise operation.
template <class A, class B>
concept same_shape = dense<A> && dense<B> && std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;

}  // namespace static_attention

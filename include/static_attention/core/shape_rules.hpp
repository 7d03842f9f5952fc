// SPDX-License-Identifier: BSL-1.0
// The shape rules, as named predicates. A failed rule names itself and the shapes in numbers in
// the first lines of a diagnostic, on GCC and Clang alike:
//   static assertion failed due to requirement 'inner_dims_match<shape<6, 3>, shape<6, 3>>'
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/shape.hpp>

namespace static_attention {

/// A shape, as it appears in diagnostics: `shape<6, 3>` is 6 x 3, `shape<2, 6, 3>` is 2 x 6 x 3.
template <std::size_t... Dims>
struct shape {};

/// A batch size, as it appears in diagnostics.
template <std::size_t B>
struct batch_size {};

/// (R x K) . (K x C): the inner dimensions of a matrix product agree.
template <class A, class B>
inline constexpr bool inner_dims_match = false;
template <std::size_t R, std::size_t K, std::size_t C>
inline constexpr bool inner_dims_match<shape<R, K>, shape<K, C>> = true;

/// The lengths of the braced rows of an initializer, as they appear in diagnostics.
template <std::size_t... Lengths>
struct braced_rows {};

/// A nested-brace initializer has the matrix's rows and columns:
/// `braced_rows_fit<shape<2, 3>, braced_rows<3, 2>>` is false (the second row is short).
template <class Shape, class Rows>
inline constexpr bool braced_rows_fit = false;
namespace detail {
// A loop, not a fold expression: Clang limits a fold's nesting to 256 operands.
template <std::size_t C, std::size_t... Lengths>
constexpr bool all_rows_have(const std::size_t (&lengths)[sizeof...(Lengths)]) noexcept {
  for (std::size_t length : lengths)
    if (length != C) return false;
  return true;
}
}  // namespace detail
template <std::size_t R, std::size_t C, std::size_t... Lengths>
inline constexpr bool braced_rows_fit<shape<R, C>, braced_rows<Lengths...>> =
    sizeof...(Lengths) == R&& detail::all_rows_have<C, Lengths...>({Lengths...});

/// Element-wise operands have equal shapes.
template <class A, class B>
inline constexpr bool shapes_equal = std::is_same_v<A, B>;

/// A 1 x C row broadcasts over every row of an R x C matrix or a B x N x C tensor, as in
/// PyTorch's `y + bias`: `row_broadcast_fits<shape<6, 3>, shape<1, 4>>` is false (a row of 4
/// columns over a 6 x 3 matrix).
template <class Shape, class Row>
inline constexpr bool row_broadcast_fits = false;
template <std::size_t R, std::size_t C>
inline constexpr bool row_broadcast_fits<shape<R, C>, shape<1, C>> = true;
template <std::size_t B, std::size_t N, std::size_t C>
inline constexpr bool row_broadcast_fits<shape<B, N, C>, shape<1, C>> = true;

/// Operands have one element type.
template <class A, class B>
inline constexpr bool element_types_equal = std::is_same_v<A, B>;

/// Batched operands have one batch size.
template <class A, class B>
inline constexpr bool batch_sizes_match = false;
template <std::size_t B>
inline constexpr bool batch_sizes_match<batch_size<B>, batch_size<B>> = true;

/// A weight matrix has the shape a module expects: `weight_shape_matches<given, expected>`.
template <class Given, class Expected>
inline constexpr bool weight_shape_matches = std::is_same_v<Given, Expected>;

/// An input sequence has the features a module expects: `input_features_match<given, d_in>`.
template <class Given, std::size_t DIn>
inline constexpr bool input_features_match = false;
template <std::size_t N, std::size_t DIn>
inline constexpr bool input_features_match<shape<N, DIn>, DIn> = true;

/// Multi-head attention splits d_out into num_heads heads of head_dim = d_out / num_heads.
template <std::size_t DOut, std::size_t NumHeads>
inline constexpr bool d_out_divisible_by_num_heads = NumHeads > 0 && DOut % NumHeads == 0;

/// A causal module with a context length takes at most that many tokens.
template <std::size_t Tokens, std::size_t ContextLength>
inline constexpr bool tokens_within_context_length = Tokens <= ContextLength;

/// No bound on the number of tokens: the default context length.
inline constexpr std::size_t no_context_limit = static_cast<std::size_t>(-1);

/// Softmax and attention need a floating-point element type with the library's math: float or
/// double. (long double is refused: static_attention's exp, log, sqrt and tanh, and so their
/// accuracy contract, are float and double only.)
template <class T>
inline constexpr bool is_floating_element = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// Matrices and tensors hold arithmetic elements without const or volatile: a read-only matrix is
/// a `const matrix<float, R, C>`, not a `matrix<const float, R, C>`.
template <class T>
inline constexpr bool is_plain_element = std::is_arithmetic_v<T>&& std::is_same_v<T, std::remove_cv_t<T>>;

namespace detail {
template <class M>
struct shape_of;
template <class T, std::size_t R, std::size_t C>
struct shape_of<matrix<T, R, C>> {
  using type = shape<R, C>;
};
template <class T, std::size_t B, std::size_t N, std::size_t D>
struct shape_of<tensor<T, B, N, D>> {
  using type = shape<B, N, D>;
};
template <class...>
inline constexpr bool always_false = false;
}  // namespace detail

/// The shape of a matrix or tensor type as `shape<...>`, for diagnostics and shape algebra.
template <dense M>
using shape_t = typename detail::shape_of<std::remove_cvref_t<M>>::type;

}  // namespace static_attention

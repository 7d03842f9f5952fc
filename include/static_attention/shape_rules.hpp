// The shape rules, as named predicates. A failed rule names itself and the shapes in numbers in
// the first lines of a diagnostic, on GCC and Clang alike:
//   static assertion failed due to requirement 'inner_dims_match<shape<6, 3>, shape<6, 3>>'
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/shape.hpp>

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

/// Element-wise operands have equal shapes.
template <class A, class B>
inline constexpr bool shapes_equal = std::is_same_v<A, B>;

/// Operands have one element type.
template <class A, class B>
inline constexpr bool element_types_equal = std::is_same_v<A, B>;

/// Batched operands have one batch size.
template <class A, class B>
inline constexpr bool batch_sizes_match = false;
template <std::size_t B>
inline constexpr bool batch_sizes_match<batch_size<B>, batch_size<B>> = true;

/// Softmax and attention need a floating-point element type.
template <class T>
inline constexpr bool is_floating_element = std::is_floating_point_v<T>;

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

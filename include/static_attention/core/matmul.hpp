// SPDX-License-Identifier: BSL-1.0
// matmul: the matrix product (R x K) . (K x C) -> (R x C), plain and batched.
// The matrix product is never spelled `*`: on matrices `*` is the element-wise product.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/detail/matmul_kernel.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// a and b can be multiplied: matrices or tensors whose inner dimensions agree, of one element
/// type, and for two tensors of one batch size. Use it to test a product without a hard error:
/// `static_assert(!matmul_compatible<decltype(a), decltype(b)>);`
template <class A, class B>
concept matmul_compatible = dense<A> && dense<B> && std::is_same_v<value_type_t<A>, value_type_t<B>> &&
    inner_dims_match<shape<rows_v<A>, cols_v<A>>, shape<rows_v<B>, cols_v<B>>> &&
    (!tensor_type<A> || !tensor_type<B> || batch_v<A> == batch_v<B>)&&(!tensor_type<B> || tensor_type<A>);

namespace detail {
// States the rule, with a likely fix where the shapes suggest one. The requirement printed by
// the compiler carries the operands' shapes in numbers.
template <std::size_t AR, std::size_t AC, std::size_t BR, std::size_t BC>
constexpr void check_matmul_shapes() noexcept {
  using a = shape<AR, AC>;
  using b = shape<BR, BC>;
  if constexpr (AR == BR && AC == BC) {
    static_assert(inner_dims_match<a, b>,
                  "matmul(a, b) requires cols(a) == rows(b); here a and b have one shape: did you mean "
                  "matmul(a, transpose(b))? For the element-wise product use a * b");
  } else if constexpr (AC == BC) {
    static_assert(inner_dims_match<a, b>,
                  "matmul(a, b) requires cols(a) == rows(b); did you mean matmul(a, transpose(b))?");
  } else if constexpr (AR == BR) {
    static_assert(inner_dims_match<a, b>,
                  "matmul(a, b) requires cols(a) == rows(b); did you mean matmul(transpose(a), b)?");
  } else if constexpr (AR == BC) {
    static_assert(inner_dims_match<a, b>, "matmul(a, b) requires cols(a) == rows(b); did you mean matmul(b, a)?");
  } else {
    static_assert(inner_dims_match<a, b>, "matmul(a, b) requires cols(a) == rows(b)");
  }
}
}  // namespace detail

/// The matrix product (R x K) . (K x C) -> (R x C).
template <class T, std::size_t R, std::size_t K, std::size_t K2, std::size_t C>
constexpr matrix<T, R, C> matmul(const matrix<T, R, K>& a, const matrix<T, K2, C>& b) noexcept {
  detail::check_matmul_shapes<R, K, K2, C>();
  if constexpr (K == K2) {
    matrix<T, R, C> out{detail::uninitialized};  // the kernel writes every element
    detail::matmul_kernel<T, R, K, C>(a.elems, b.elems, out.elems);
    return out;
  } else {
    return matrix<T, R, C>{};
  }
}

/// The matrix product written into `out`, a matrix the caller owns (static, heap or a
/// workspace): no result on the stack, whatever the shape. Same bits as `out = matmul(a, b)`.
template <class T, std::size_t R, std::size_t K, std::size_t K2, std::size_t C>
constexpr void matmul_into(matrix<T, R, C>& out, const matrix<T, R, K>& a, const matrix<T, K2, C>& b) noexcept {
  detail::check_matmul_shapes<R, K, K2, C>();
  if constexpr (K == K2) detail::matmul_kernel<T, R, K, C>(a.elems, b.elems, out.elems);
}

/// Batched product, item by item: (B x N x K) . (B x K x C) -> (B x N x C), as `torch.matmul`.
template <class T, std::size_t B, std::size_t B2, std::size_t N, std::size_t K, std::size_t K2, std::size_t C>
constexpr tensor<T, B, N, C> matmul(const tensor<T, B, N, K>& a, const tensor<T, B2, K2, C>& b) noexcept {
  static_assert(batch_sizes_match<batch_size<B>, batch_size<B2>>,
                "matmul(a, b) on two tensors requires batch(a) == batch(b)");
  detail::check_matmul_shapes<N, K, K2, C>();
  tensor<T, B, N, C> out;
  if constexpr (K == K2 && B == B2)
    for (std::size_t i = 0; i < B; ++i)
      detail::matmul_kernel<T, N, K, C>(a.elems + i * N * K, b.elems + i * K * C, out.elems + i * N * C);
  return out;
}

/// A batch times one matrix, broadcast over the batch: (B x N x K) . (K x C) -> (B x N x C).
template <class T, std::size_t B, std::size_t N, std::size_t K, std::size_t K2, std::size_t C>
constexpr tensor<T, B, N, C> matmul(const tensor<T, B, N, K>& a, const matrix<T, K2, C>& b) noexcept {
  detail::check_matmul_shapes<N, K, K2, C>();
  tensor<T, B, N, C> out;
  // One kernel call: the batch of N x K rows is a (B*N) x K matrix.
  if constexpr (K == K2) detail::matmul_kernel<T, B * N, K, C>(a.elems, b.elems, out.elems);
  return out;
}

/// Operands no other overload takes: two element types, or a matrix times a tensor. States the
/// rule instead of listing candidates.
template <dense A, dense B>
requires(!std::is_same_v<value_type_t<A>, value_type_t<B>> || (matrix_type<A> && tensor_type<B>)) constexpr A
    matmul(const A& a, const B&) noexcept {
  static_assert(element_types_equal<value_type_t<A>, value_type_t<B>>,
                "matmul(a, b) requires one element type; convert one operand with map()");
  static_assert(!(matrix_type<A> && tensor_type<B>),
                "matmul(a, b) takes a matrix or a batch as a, and a batch only with a batch: for a matrix "
                "times a batch, stack the matrix or transpose the product (b^T a^T)");
  return a;
}

}  // namespace static_attention

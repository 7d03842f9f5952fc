// SPDX-License-Identifier: BSL-1.0
// The ranks matrix and tensor do not cover, as the book prints them: scalar<T> (0-d, what
// `x.sum()` or `x[1, 2]` gives), vector<T, N> (1-d, `torch.Size([N])`) and tensor4<T, A, B, C, D>
// (4-d, `(b, num_heads, num_tokens, head_dim)`). Each keeps its whole shape in its type, like
// matrix, so a diagnostic names it in one short line; each is contiguous, row-major, structural.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <static_attention/core/detail/index_check.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention {

/// A 0-d tensor of T: one value, printed as torch prints `tensor(1.)`.
template <class T>
struct scalar {
  static_assert(std::is_arithmetic_v<T>, "scalar<T> requires an arithmetic element type T");
  using value_type = T;
  /// Number of elements (always 1).
  static constexpr std::size_t size = 1;
  /// The value. Public so that the type is structural.
  T elems[1]{};
  /// Zero.
  constexpr scalar() noexcept = default;
  /// The value `v`.
  constexpr explicit scalar(T v) noexcept : elems{v} {}
  /// torch's `x.item()`.
  constexpr T item() const noexcept { return elems[0]; }
  /// Pointer to the value.
  constexpr const T* data() const noexcept { return elems; }
  /// Equality of the values.
  friend constexpr bool operator==(const scalar&, const scalar&) = default;
};

/// A 1-d tensor of N elements of T (`torch.Size([N])`), contiguous.
template <class T, std::size_t N>
struct vector {
  static_assert(N > 0, "vector<T, N> requires N > 0");
  static_assert(std::is_arithmetic_v<T>, "vector<T, N> requires an arithmetic element type T");
  using value_type = T;
  /// Number of elements.
  static constexpr std::size_t size = N;
  /// Storage. Public so that the type is structural.
  T elems[N]{};
  /// Element i. Out of range: a compile error in constant evaluation, an assertion at run time.
  constexpr T& operator()(std::size_t i) noexcept {
    detail::check_index<N>(i);
    return elems[i];
  }
  /// Element i, read-only.
  constexpr const T& operator()(std::size_t i) const noexcept {
    detail::check_index<N>(i);
    return elems[i];
  }
  /// Pointer to the first of the N elements.
  constexpr T* data() noexcept { return elems; }
  constexpr const T* data() const noexcept { return elems; }
  /// Element-wise equality.
  friend constexpr bool operator==(const vector&, const vector&) = default;
};

/// A 4-d tensor of A x B x C x D elements of T, row-major and contiguous: the book's
/// `(b, num_heads, num_tokens, head_dim)`.
template <class T, std::size_t A, std::size_t B, std::size_t C, std::size_t D>
struct tensor4 {
  static_assert(A > 0 && B > 0 && C > 0 && D > 0, "tensor4<T, A, B, C, D> requires A, B, C and D > 0");
  static_assert(std::is_arithmetic_v<T>, "tensor4<T, A, B, C, D> requires an arithmetic element type T");
  using value_type = T;
  /// Number of elements.
  static constexpr std::size_t size = A * B * C * D;
  /// Storage, row-major. Public so that the type is structural.
  T elems[A * B * C * D]{};
  /// Element (a, b, c, d).
  constexpr T& operator()(std::size_t a, std::size_t b, std::size_t c, std::size_t d) noexcept {
    detail::check_index<A>(a);
    detail::check_index<B>(b);
    detail::check_index<C, D>(c, d);
    return elems[((a * B + b) * C + c) * D + d];
  }
  /// Element (a, b, c, d), read-only.
  constexpr const T& operator()(std::size_t a, std::size_t b, std::size_t c, std::size_t d) const noexcept {
    detail::check_index<A>(a);
    detail::check_index<B>(b);
    detail::check_index<C, D>(c, d);
    return elems[((a * B + b) * C + c) * D + d];
  }
  /// Pointer to the first element.
  constexpr T* data() noexcept { return elems; }
  constexpr const T* data() const noexcept { return elems; }
  /// Element-wise equality.
  friend constexpr bool operator==(const tensor4&, const tensor4&) = default;
};

/// The elements of a matrix, tensor or tensor4 as one vector (torch's `x.flatten()`); a 1 x N
/// row or an N x 1 column becomes `torch.Size([N])`, as `x.squeeze()` or `x[0]` of a row.
template <class M>
requires requires {
  M::size;
  typename M::value_type;
}
constexpr vector<typename M::value_type, M::size> flatten(const M& m) noexcept {
  vector<typename M::value_type, M::size> v;
  for (std::size_t k = 0; k < M::size; ++k) v.elems[k] = m.elems[k];
  return v;
}

/// Element (i, j) as a 0-d tensor: torch's `m[i, j]`.
template <class T, std::size_t R, std::size_t C>
constexpr scalar<T> at(const matrix<T, R, C>& m, std::size_t i, std::size_t j) noexcept {
  return scalar<T>{m(i, j)};
}

/// Element i as a 0-d tensor: torch's `v[i]`.
template <class T, std::size_t N>
constexpr scalar<T> at(const vector<T, N>& v, std::size_t i) noexcept {
  return scalar<T>{v(i)};
}

/// The items of a tensor4 as a 4-d tensor built from A x B matrices of C x D, in row-major order
/// (`tensor4_of<1, 2>(head0, head1)` is torch's `torch.stack([head0, head1]).unsqueeze(0)`).
template <std::size_t A, std::size_t B, class T, std::size_t C, std::size_t D, class... M>
requires(sizeof...(M) + 1 == A * B && (std::is_same_v<M, matrix<T, C, D>> &&
                                       ...)) constexpr tensor4<T, A, B, C, D> tensor4_of(const matrix<T, C, D>& first,
                                                                                         const M&... rest) noexcept {
  tensor4<T, A, B, C, D> t;
  const matrix<T, C, D>* items[] = {&first, &rest...};
  for (std::size_t m = 0; m < A * B; ++m)
    for (std::size_t k = 0; k < C * D; ++k) t.elems[m * C * D + k] = items[m]->elems[k];
  return t;
}

namespace detail {

// The sizes of a fixed-shape array type, outermost first, and the type of given sizes.
template <class M>
struct rank_sizes;
template <class T>
struct rank_sizes<scalar<T>> {
  using value_type = T;
  static constexpr std::array<std::size_t, 0> sizes{};
};
template <class T, std::size_t N>
struct rank_sizes<vector<T, N>> {
  using value_type = T;
  static constexpr std::array<std::size_t, 1> sizes{N};
};
template <class T, std::size_t R, std::size_t C>
struct rank_sizes<matrix<T, R, C>> {
  using value_type = T;
  static constexpr std::array<std::size_t, 2> sizes{R, C};
};
template <class T, std::size_t B, std::size_t N, std::size_t D>
struct rank_sizes<tensor<T, B, N, D>> {
  using value_type = T;
  static constexpr std::array<std::size_t, 3> sizes{B, N, D};
};
template <class T, std::size_t A, std::size_t B, std::size_t C, std::size_t D>
struct rank_sizes<tensor4<T, A, B, C, D>> {
  using value_type = T;
  static constexpr std::array<std::size_t, 4> sizes{A, B, C, D};
};

template <class T, std::size_t... S>
struct of_sizes;
template <class T>
struct of_sizes<T> {
  using type = scalar<T>;
};
template <class T, std::size_t N>
struct of_sizes<T, N> {
  using type = vector<T, N>;
};
template <class T, std::size_t R, std::size_t C>
struct of_sizes<T, R, C> {
  using type = matrix<T, R, C>;
};
template <class T, std::size_t B, std::size_t N, std::size_t D>
struct of_sizes<T, B, N, D> {
  using type = tensor<T, B, N, D>;
};
template <class T, std::size_t A, std::size_t B, std::size_t C, std::size_t D>
struct of_sizes<T, A, B, C, D> {
  using type = tensor4<T, A, B, C, D>;
};

template <class M>
concept has_rank_sizes = requires {
  rank_sizes<std::remove_cvref_t<M>>::sizes;
};

}  // namespace detail

}  // namespace static_attention

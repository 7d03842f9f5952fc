// SPDX-License-Identifier: BSL-1.0
// Element-wise operations on matrices and tensors of equal shape, and with scalars.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/shape_rules.hpp>

namespace static_attention {

namespace detail {
template <class M, class U>
struct rebind;
template <class T, std::size_t R, std::size_t C, class U>
struct rebind<matrix<T, R, C>, U> {
  using type = matrix<U, R, C>;
};
template <class T, std::size_t B, std::size_t N, std::size_t D, class U>
struct rebind<tensor<T, B, N, D>, U> {
  using type = tensor<U, B, N, D>;
};

}  // namespace detail

/// The same shape with element type U.
template <dense M, class U>
using rebind_t = typename detail::rebind<std::remove_cvref_t<M>, U>::type;

/// f applied to every element; the result's element type is f's return type.
template <dense M, class F>
constexpr auto map(const M& m, F f) noexcept(noexcept(f(m.elems[0]))) {
  using U = std::remove_cvref_t<decltype(f(m.elems[0]))>;
  rebind_t<M, U> out;
  for (std::size_t k = 0; k < M::size; ++k) out.elems[k] = f(m.elems[k]);
  return out;
}

namespace detail {
// The operations as function objects, not lambdas: a lambda's parameter in a header template
// trips GCC's -Wshadow wherever the user has a global of the same name.
struct plus_op {
  template <class X>
  constexpr X operator()(const X& lhs, const X& rhs) const noexcept {
    return static_cast<X>(lhs + rhs);
  }
};
struct minus_op {
  template <class X>
  constexpr X operator()(const X& lhs, const X& rhs) const noexcept {
    return static_cast<X>(lhs - rhs);
  }
};
struct multiplies_op {
  template <class X>
  constexpr X operator()(const X& lhs, const X& rhs) const noexcept {
    // Rounded on its own, so that a * b + c at run time is not fused where inlining joins them.
    if constexpr (std::is_floating_point_v<X>)
      return rounded_product(lhs, rhs);
    else
      return static_cast<X>(lhs * rhs);
  }
};
struct divides_op {
  template <class X>
  constexpr X operator()(const X& lhs, const X& rhs) const noexcept {
    return static_cast<X>(lhs / rhs);
  }
};
// Op with a scalar on the right (ScalarRight) or on the left.
template <class Op, class T, bool ScalarRight>
struct with_scalar {
  T scalar;
  constexpr T operator()(T elem) const noexcept { return ScalarRight ? Op{}(elem, scalar) : Op{}(scalar, elem); }
};
template <class T>
struct negate_op {
  constexpr T operator()(T elem) const noexcept { return static_cast<T>(-elem); }
};

// A 1 x C matrix, which broadcasts over the rows of a larger operand.
template <class M>
inline constexpr bool is_row = matrix_type<M>&& rows_v<M> == 1;

// `a op row` broadcasts: Row is a 1 x C row of A's element type and columns, and A is larger.
template <class A, class Row>
concept broadcasts_row = dense<A> && dense<Row> && is_row<Row> && !std::is_same_v<A, Row> &&
                         std::is_same_v<value_type_t<A>, value_type_t<Row>> && cols_v<A> == cols_v<Row>;

// The element-wise rule, stated for the operator the user wrote; the requirement the compiler
// prints carries both shapes.
template <class Op, class A, class B>
constexpr void check_elementwise() noexcept {
  static_assert(element_types_equal<value_type_t<A>, value_type_t<B>>,
                "element-wise a op b requires one element type; convert one operand with map()");
  if constexpr (std::is_same_v<Op, multiplies_op> && matrix_type<A> && matrix_type<B> && cols_v<A> == rows_v<B>) {
    static_assert(shapes_equal<shape_t<A>, shape_t<B>>,
                  "a * b is the element-wise product and requires equal shapes; for the matrix "
                  "product use matmul(a, b)");
  } else if constexpr (is_row<B> && !is_row<A>) {
    static_assert(row_broadcast_fits<shape_t<A>, shape_t<B>>,
                  "a + row, a - row, a * row and a / row broadcast a 1 x C row over every row of a, and require "
                  "cols(row) == cols(a)");
  } else if constexpr (is_row<A> && !is_row<B>) {
    static_assert(row_broadcast_fits<shape_t<B>, shape_t<A>>,
                  "row + b, row - b, row * b and row / b broadcast a 1 x C row over every row of b, and require "
                  "cols(row) == cols(b)");
  } else {
    static_assert(shapes_equal<shape_t<A>, shape_t<B>>,
                  "element-wise a + b, a - b, a * b and a / b require equal shapes");
  }
}

template <class Op, class A, class B>
constexpr A elementwise(const A& a, const B& b) noexcept {
  check_elementwise<Op, A, B>();
  if constexpr (std::is_same_v<A, B>) {
    A out;
    for (std::size_t k = 0; k < A::size; ++k) out.elems[k] = Op{}(a.elems[k], b.elems[k]);
    return out;
  } else {
    return a;
  }
}

// a op row (RowOnLeft: row op a), the row repeated over every row of a: PyTorch's broadcasting.
template <class Op, bool RowOnLeft, class A, class Row>
constexpr A broadcast_row(const A& a, const Row& row) noexcept {
  constexpr std::size_t C = cols_v<A>;
  A out;
  for (std::size_t i = 0; i < A::size / C; ++i)
    for (std::size_t j = 0; j < C; ++j)
      out.elems[i * C + j] =
          RowOnLeft ? Op{}(row.elems[j], a.elems[i * C + j]) : Op{}(a.elems[i * C + j], row.elems[j]);
  return out;
}

// a op= b: the result has a's shape, so b has it too, or is a row that broadcasts over a.
template <class Op, class A, class B>
constexpr A& compound(A& a, const B& b) noexcept {
  if constexpr (broadcasts_row<A, B>) {
    a = broadcast_row<Op, false>(a, b);
  } else if constexpr (broadcasts_row<B, A>) {
    static_assert(shapes_equal<shape_t<A>, shape_t<B>>,
                  "a += b, a -= b, a *= b and a /= b store the result in a, so b must have a's shape or be a "
                  "1 x C row; here a is the row and b is larger: write b + a");
  } else {
    a = elementwise<Op>(a, b);
  }
  return a;
}
}  // namespace detail

/// Element-wise sum. Requires equal shapes.
template <dense A, dense B>
constexpr A operator+(const A& a, const B& b) noexcept {
  return detail::elementwise<detail::plus_op>(a, b);
}
/// Element-wise difference. Requires equal shapes.
template <dense A, dense B>
constexpr A operator-(const A& a, const B& b) noexcept {
  return detail::elementwise<detail::minus_op>(a, b);
}
/// Element-wise (Hadamard) product, as PyTorch's `a * b`. The matrix product is `matmul(a, b)`.
template <dense A, dense B>
constexpr A operator*(const A& a, const B& b) noexcept {
  return detail::elementwise<detail::multiplies_op>(a, b);
}
/// Element-wise quotient. Requires equal shapes.
template <dense A, dense B>
constexpr A operator/(const A& a, const B& b) noexcept {
  return detail::elementwise<detail::divides_op>(a, b);
}

/// Broadcasting, as PyTorch's: a 1 x C row combines with every row of an R x C matrix or a
/// B x N x C tensor, on either side (`y + bias`, `bias + y`); the result has the larger shape.
/// Other shapes must be equal; a row of the wrong width is a compile error naming
/// row_broadcast_fits and both shapes.
template <dense A, dense Row>
requires detail::broadcasts_row<A, Row>
constexpr A operator+(const A& a, const Row& row) noexcept {
  return detail::broadcast_row<detail::plus_op, false>(a, row);
}
template <dense Row, dense B>
requires detail::broadcasts_row<B, Row>
constexpr B operator+(const Row& row, const B& b) noexcept {
  return detail::broadcast_row<detail::plus_op, true>(b, row);
}
template <dense A, dense Row>
requires detail::broadcasts_row<A, Row>
constexpr A operator-(const A& a, const Row& row) noexcept {
  return detail::broadcast_row<detail::minus_op, false>(a, row);
}
template <dense Row, dense B>
requires detail::broadcasts_row<B, Row>
constexpr B operator-(const Row& row, const B& b) noexcept {
  return detail::broadcast_row<detail::minus_op, true>(b, row);
}
template <dense A, dense Row>
requires detail::broadcasts_row<A, Row>
constexpr A operator*(const A& a, const Row& row) noexcept {
  return detail::broadcast_row<detail::multiplies_op, false>(a, row);
}
template <dense Row, dense B>
requires detail::broadcasts_row<B, Row>
constexpr B operator*(const Row& row, const B& b) noexcept {
  return detail::broadcast_row<detail::multiplies_op, true>(b, row);
}
template <dense A, dense Row>
requires detail::broadcasts_row<A, Row>
constexpr A operator/(const A& a, const Row& row) noexcept {
  return detail::broadcast_row<detail::divides_op, false>(a, row);
}
template <dense Row, dense B>
requires detail::broadcasts_row<B, Row>
constexpr B operator/(const Row& row, const B& b) noexcept {
  return detail::broadcast_row<detail::divides_op, true>(b, row);
}

/// Negation.
template <dense M>
constexpr M operator-(const M& m) noexcept {
  return map(m, detail::negate_op<value_type_t<M>>{});
}

/// Scalar operations, applied to every element.
template <dense M>
constexpr M operator+(const M& m, value_type_t<M> s) noexcept {
  return map(m, detail::with_scalar<detail::plus_op, value_type_t<M>, true>{s});
}
template <dense M>
constexpr M operator+(value_type_t<M> s, const M& m) noexcept {
  return m + s;
}
template <dense M>
constexpr M operator-(const M& m, value_type_t<M> s) noexcept {
  return map(m, detail::with_scalar<detail::minus_op, value_type_t<M>, true>{s});
}
template <dense M>
constexpr M operator-(value_type_t<M> s, const M& m) noexcept {
  return map(m, detail::with_scalar<detail::minus_op, value_type_t<M>, false>{s});
}
template <dense M>
constexpr M operator*(const M& m, value_type_t<M> s) noexcept {
  return map(m, detail::with_scalar<detail::multiplies_op, value_type_t<M>, true>{s});
}
template <dense M>
constexpr M operator*(value_type_t<M> s, const M& m) noexcept {
  return m * s;
}
template <dense M>
constexpr M operator/(const M& m, value_type_t<M> s) noexcept {
  return map(m, detail::with_scalar<detail::divides_op, value_type_t<M>, true>{s});
}
/// The scalar divided by every element: `1.0f / m` is the element-wise reciprocal.
template <dense M>
constexpr M operator/(value_type_t<M> s, const M& m) noexcept {
  return map(m, detail::with_scalar<detail::divides_op, value_type_t<M>, false>{s});
}

/// Compound assignment, element-wise (equal shapes, or a 1 x C row broadcast over a: `y += bias`)
/// or with a scalar of the element type.
template <dense A, dense B>
constexpr A& operator+=(A& a, const B& b) noexcept {
  return detail::compound<detail::plus_op>(a, b);
}
template <dense A, dense B>
constexpr A& operator-=(A& a, const B& b) noexcept {
  return detail::compound<detail::minus_op>(a, b);
}
template <dense A, dense B>
constexpr A& operator*=(A& a, const B& b) noexcept {
  return detail::compound<detail::multiplies_op>(a, b);
}
template <dense A, dense B>
constexpr A& operator/=(A& a, const B& b) noexcept {
  return detail::compound<detail::divides_op>(a, b);
}
// The scalar's type is the element type, so any conversion happens (and is diagnosed) at the
// caller, as with the binary operators.
template <dense A>
constexpr A& operator+=(A& a, value_type_t<A> s) noexcept {
  return a = a + s;
}
template <dense A>
constexpr A& operator-=(A& a, value_type_t<A> s) noexcept {
  return a = a - s;
}
template <dense A>
constexpr A& operator*=(A& a, value_type_t<A> s) noexcept {
  return a = a * s;
}
template <dense A>
constexpr A& operator/=(A& a, value_type_t<A> s) noexcept {
  return a = a / s;
}

/// True when every |a - b| <= tol (absolute tolerance; NaN never compares equal, equal
/// infinities do).
template <dense A, dense B>
requires same_shape<A, B>
constexpr bool approx_equal(const A& a, const B& b, value_type_t<A> tol) noexcept {
  for (std::size_t k = 0; k < A::size; ++k) {
    const auto x = a.elems[k];
    const auto y = b.elems[k];
    // Compare before subtracting: constant evaluation rejects arithmetic that yields NaN.
    if (x != x || y != y) return false;
    if (x == y) continue;  // equal infinities
    const auto d = x > y ? x - y : y - x;
    if (!(d <= tol)) return false;
  }
  return true;
}

/// Largest |a - b| over all elements (NaN if an operand holds NaN; equal infinities differ by 0).
template <dense A, dense B>
requires same_shape<A, B>
constexpr value_type_t<A> max_abs_diff(const A& a, const B& b) noexcept {
  value_type_t<A> worst{};
  for (std::size_t k = 0; k < A::size; ++k) {
    const auto x = a.elems[k];
    const auto y = b.elems[k];
    if (x != x) return x;
    if (y != y) return y;
    if (x == y) continue;
    const auto d = x > y ? x - y : y - x;
    if (d > worst) worst = d;
  }
  return worst;
}

}  // namespace static_attention

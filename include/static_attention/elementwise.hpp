// Element-wise operations on matrices and tensors of equal shape, and with scalars.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/shape.hpp>
#include <static_attention/shape_rules.hpp>

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

/// Compound assignment, element-wise (equal shapes) or with a scalar of the element type.
template <dense A, dense B>
constexpr A& operator+=(A& a, const B& b) noexcept {
  return a = a + b;
}
template <dense A, dense B>
constexpr A& operator-=(A& a, const B& b) noexcept {
  return a = a - b;
}
template <dense A, dense B>
constexpr A& operator*=(A& a, const B& b) noexcept {
  return a = a * b;
}
template <dense A, dense B>
constexpr A& operator/=(A& a, const B& b) noexcept {
  return a = a / b;
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

// SPDX-License-Identifier: BSL-1.0
// Named dimensions, opt-in: a matrix whose rows and columns also carry a name (tokens, d_in,
// d_out, ...), so that the shape rules also compare names. That catches the mistakes equal
// sizes hide: matmul(queries, keys) for matmul(queries, transpose(keys)) when N == d_out, or a
// transposed W_query when d_in == d_out.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/softmax.hpp>

namespace static_attention {

/// The name of a dimension that has none: it agrees with every name.
struct unnamed {};

/// Names the chapter uses. Any type can name a dimension: `struct heads;` is enough.
namespace dims {
struct tokens;
struct d_in;
struct d_out;
struct head_dim;
}  // namespace dims

/// A matrix or tensor M whose last two dimensions are named RowName and ColName.
template <dense M, class RowName, class ColName>
struct named {
  using value_type = value_type_t<M>;
  using row_name = RowName;
  using col_name = ColName;
  /// The unnamed matrix or tensor.
  M value;
};

/// Gives m's rows and columns names: `auto x = name<dims::tokens, dims::d_in>(inputs);`
template <class RowName, class ColName, dense M>
constexpr named<M, RowName, ColName> name(const M& m) noexcept {
  return {m};
}

/// Two dimension names agree: equal, or one of them unnamed.
template <class A, class B>
inline constexpr bool dim_names_match =
    std::is_same_v<A, B> || std::is_same_v<A, unnamed> || std::is_same_v<B, unnamed>;

namespace detail {
template <class A, class B>
using merged_name = std::conditional_t<std::is_same_v<A, unnamed>, B, A>;

// A plain matrix or tensor is named<M, unnamed, unnamed>: names and no names mix.
template <class M>
struct as_named;  // undefined for anything that is neither dense nor named
template <dense M>
struct as_named<M> {
  using type = named<M, unnamed, unnamed>;
  static constexpr const M& value(const M& m) noexcept { return m; }
};
template <class M, class R, class C>
struct as_named<named<M, R, C>> {
  using type = named<M, R, C>;
  static constexpr const M& value(const named<M, R, C>& m) noexcept { return m.value; }
};
template <class X>
using as_named_t = typename as_named<std::remove_cvref_t<X>>::type;

template <class X>
inline constexpr bool is_named = !std::is_same_v<typename as_named_t<X>::row_name, unnamed> ||
                                 !std::is_same_v<typename as_named_t<X>::col_name, unnamed>;

template <class X>
constexpr decltype(auto) unname(const X& x) noexcept {
  return as_named<std::remove_cvref_t<X>>::value(x);
}
}  // namespace detail

/// Operands of which at least one is named.
template <class A, class B>
concept some_named = requires {
  typename detail::as_named_t<A>;
  typename detail::as_named_t<B>;
}
&&(detail::is_named<A> || detail::is_named<B>);

/// The matrix product with names: the inner names must agree; the result is named
/// (rows of a) x (cols of b). Shapes follow matmul's rule as usual.
template <class A, class B>
requires some_named<A, B>
constexpr auto matmul(const A& a, const B& b) noexcept {
  using na = detail::as_named_t<A>;
  using nb = detail::as_named_t<B>;
  static_assert(dim_names_match<typename na::col_name, typename nb::row_name>,
                "matmul(a, b) requires cols(a) and rows(b) to be one dimension; here they have different names");
  auto product = matmul(detail::unname(a), detail::unname(b));
  return named<decltype(product), typename na::row_name, typename nb::col_name>{product};
}

/// The transpose swaps the names with the dimensions.
template <dense M, class R, class C>
constexpr auto transpose(const named<M, R, C>& m) noexcept {
  auto t = transpose(m.value);
  return named<decltype(t), C, R>{t};
}

/// Softmax over the last dimension keeps the names.
template <dense M, class R, class C>
constexpr named<M, R, C> softmax(const named<M, R, C>& m) noexcept {
  return {softmax(m.value)};
}

namespace detail {
template <class Op, class A, class B>
constexpr auto named_elementwise(const A& a, const B& b) noexcept {
  using na = as_named_t<A>;
  using nb = as_named_t<B>;
  static_assert(dim_names_match<typename na::row_name, typename nb::row_name> &&
                    dim_names_match<typename na::col_name, typename nb::col_name>,
                "element-wise a op b requires the same dimension names on both operands");
  auto r = Op{}(unname(a), unname(b));
  return named<decltype(r), merged_name<typename na::row_name, typename nb::row_name>,
               merged_name<typename na::col_name, typename nb::col_name>>{r};
}
}  // namespace detail

/// Element-wise operations with names: each dimension's names must agree.
template <class A, class B>
requires some_named<A, B>
constexpr auto operator+(const A& a, const B& b) noexcept { return detail::named_elementwise<detail::plus_op>(a, b); }
template <class A, class B>
requires some_named<A, B>
constexpr auto operator-(const A& a, const B& b) noexcept { return detail::named_elementwise<detail::minus_op>(a, b); }
template <class A, class B>
requires some_named<A, B>
constexpr auto operator*(const A& a, const B& b) noexcept {
  return detail::named_elementwise<detail::multiplies_op>(a, b);
}
template <class A, class B>
requires some_named<A, B>
constexpr auto operator/(const A& a, const B& b) noexcept {
  return detail::named_elementwise<detail::divides_op>(a, b);
}
/// Scalar operations keep the names.
template <dense M, class R, class C>
constexpr named<M, R, C> operator+(const named<M, R, C>& m, value_type_t<M> s) noexcept {
  return {m.value + s};
}
template <dense M, class R, class C>
constexpr named<M, R, C> operator-(const named<M, R, C>& m, value_type_t<M> s) noexcept {
  return {m.value - s};
}
template <dense M, class R, class C>
constexpr named<M, R, C> operator/(const named<M, R, C>& m, value_type_t<M> s) noexcept {
  return {m.value / s};
}
template <dense M, class R, class C>
constexpr named<M, R, C> operator*(const named<M, R, C>& m, value_type_t<M> s) noexcept {
  return {m.value * s};
}

}  // namespace static_attention

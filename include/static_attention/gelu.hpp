// gelu: the book's GELU, the tanh approximation.
#pragma once

#include <cstddef>
#include <type_traits>

#include <static_attention/detail/fp_contract.hpp>
#include <static_attention/math.hpp>
#include <static_attention/matrix.hpp>
#include <static_attention/shape_rules.hpp>
#include <static_attention/tensor.hpp>

namespace static_attention {

namespace detail {
// The book computes sqrt(2 / pi) as a tensor of the default dtype: sqrt of 2 / pi rounded to T.
template <class T>
inline constexpr T gelu_sqrt_2_over_pi = static_attention::sqrt(static_cast<T>(2.0 / 3.141592653589793));

// The book's expression in PyTorch's order of operations, each product rounded on its own:
// (0.5 x) (1 + tanh(c (x + 0.044715 x^3))), x^3 as (x x) x (torch.pow(x, 3)).
template <class T>
constexpr T gelu_scalar(T x) noexcept {
  const T cube = rounded_product(rounded_product(x, x), x);
  const T inner = x + rounded_product(static_cast<T>(0.044715), cube);
  const T t = static_attention::tanh(rounded_product(gelu_sqrt_2_over_pi<T>, inner));
  return rounded_product(rounded_product(static_cast<T>(0.5), x), T{1} + t);
}

template <class M>
constexpr void check_gelu_element() noexcept {
  static_assert(is_floating_element<value_type_t<M>>, "gelu(m) requires a floating-point element type (float or double)");
}
}  // namespace detail

/// GELU, the tanh approximation, element-wise:
/// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`, as the book's GELU module computes it.
template <dense M>
constexpr M gelu(const M& m) noexcept {
  detail::check_gelu_element<M>();
  M out;
  if constexpr (is_floating_element<value_type_t<M>>)
    for (std::size_t k = 0; k < M::size; ++k) out.elems[k] = detail::gelu_scalar(m.elems[k]);
  return out;
}

/// ReLU, element-wise, for comparison with GELU (the book plots both).
template <dense M>
constexpr M relu(const M& m) noexcept {
  M out;
  for (std::size_t k = 0; k < M::size; ++k) out.elems[k] = m.elems[k] > 0 ? m.elems[k] : value_type_t<M>{};
  return out;
}

}  // namespace static_attention

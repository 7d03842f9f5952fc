// SPDX-License-Identifier: BSL-1.0
// gelu: the book's GELU, the tanh approximation.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/detail/kernel_simd.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>

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

// gelu in place on n values. At run time the polynomial runs in vectors (each product still
// rounded on its own) and tanh through its array overload, which gives the scalar tanh's bits;
// in constant evaluation, gelu_scalar on each value. The same bits either way.
template <class T>
constexpr void gelu_in_place(T* data, std::size_t n) noexcept {
#if defined(__GNUC__)
  constexpr std::size_t lanes = simd::native_lanes<T>;
  if constexpr (lanes >= simd::min_lanes<T>) {
    if (!std::is_constant_evaluated()) {
      using V = simd::vec<T, lanes>;
      const auto product = [](V a, V b) {
        V p = a * b;
        round_here(p);
        return p;
      };
      constexpr std::size_t chunk = 32 * lanes;
      T args[chunk];
      const std::size_t whole = n / chunk * chunk;
      for (std::size_t done = 0; done < whole; done += chunk) {
        for (std::size_t v = 0; v < chunk; v += lanes) {
          V x;
          __builtin_memcpy(&x, data + done + v, sizeof(V));
          const V inner = x + product(static_cast<T>(0.044715) - V{}, product(product(x, x), x));
          const V arg = product(gelu_sqrt_2_over_pi<T> - V{}, inner);
          __builtin_memcpy(args + v, &arg, sizeof(V));
        }
        static_attention::tanh(std::span<const T>{args, chunk}, std::span<T>{args, chunk});
        for (std::size_t v = 0; v < chunk; v += lanes) {
          V x;
          V t;
          __builtin_memcpy(&x, data + done + v, sizeof(V));
          __builtin_memcpy(&t, args + v, sizeof(V));
          const V y = product(product(static_cast<T>(0.5) - V{}, x), T{1} + t);
          __builtin_memcpy(data + done + v, &y, sizeof(V));
        }
      }
      for (std::size_t k = whole; k < n; ++k) data[k] = gelu_scalar(data[k]);
      return;
    }
  }
#endif
  for (std::size_t k = 0; k < n; ++k) data[k] = gelu_scalar(data[k]);
}

template <class M>
constexpr void check_gelu_element() noexcept {
  static_assert(is_floating_element<value_type_t<M>>,
                "gelu(m) requires a floating-point element type (float or double)");
}
}  // namespace detail

/// GELU, the tanh approximation, element-wise:
/// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`, as the book's GELU module computes it.
template <dense M>
constexpr M gelu(const M& m) noexcept {
  detail::check_gelu_element<M>();
  M out = m;
  if constexpr (is_floating_element<value_type_t<M>>) detail::gelu_in_place(out.elems, M::size);
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

// SPDX-License-Identifier: BSL-1.0
// The kernels of nn/backward.hpp: GELU's derivative in autograd's order, and a batch seen as
// its rows.
#pragma once

#include <cstddef>

#include <static_attention/core/detail/exact_fma.hpp>
#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>

namespace static_attention::detail {

// g d/dx gelu(x) for the book's GELU, (0.5 x) (1 + tanh(c (x + 0.044715 x^3))) with c the
// sqrt(2 / pi) of its forward pass, as autograd differentiates its operations one by one, each
// product rounded on its own: the gradient reaches x through the cubic's sum (grad_v), through
// pow (3 x^2 grad_p) and through 0.5 x, and is added in the order autograd's engine delivers it.
// tanh's derivative 1 - t^2 is one fused multiply-add, as torch's AVX2 tanh_backward kernel was
// compiled (-mfma): with it the gradients are torch 1.13's bits.
template <class T>
constexpr T gelu_grad(T x, T g, T c) noexcept {
  const T kappa = static_cast<T>(0.044715);
  const T x2 = rounded_product(x, x);
  const T inner = x + rounded_product(kappa, rounded_product(x2, x));
  const T t = static_attention::tanh(rounded_product(c, inner));
  const T grad_a = rounded_product(g, T{1} + t);                                        // d/d(0.5 x)
  const T grad_b = rounded_product(g, rounded_product(T{0.5}, x));                      // d/d(1 + t)
  const T grad_u = rounded_product(grad_b, torch_normal::fused<T>(-t, t, T{1}).value);  // tanh
  const T grad_v = rounded_product(grad_u, c);                                          // c * v
  const T grad_pow = rounded_product(rounded_product(grad_v, kappa), rounded_product(T{3}, x2));
  return (grad_v + grad_pow) + rounded_product(grad_a, T{0.5});
}

// A batch's B x N rows as one (B N) x D matrix: torch's flatten(0, 1).
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr matrix<T, B * N, D> rows_of(const tensor<T, B, N, D>& t) noexcept {
  matrix<T, B * N, D> m;
  for (std::size_t k = 0; k < B * N * D; ++k) m.elems[k] = t.elems[k];
  return m;
}

}  // namespace static_attention::detail

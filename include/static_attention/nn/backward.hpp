// SPDX-License-Identifier: BSL-1.0
// Gradients, shape-typed and constexpr, as torch's autograd computes them.
//
// One convention for every layer, so that a model's backward pass is its forward pass read
// backwards, one call per step (llm.c's gpt2_backward):
// - a module's backward is `backward(module, saved_input, grad_output)`: it returns a
//   backward_result, the gradient with respect to the input and the parameters' gradients as a
//   value of the module's own type (llm.c keeps `params` and `grads` in one record type), so
//   `r.grad.weight` is torch's `layer.weight.grad`, of the weight's shape and layout;
// - a function f's is `f_backward(saved_input, grad_output)`, named as ATen names it
//   (gelu_backward, mse_loss_backward): the gradient with respect to its input.
// The saved input is what the forward pass took; the caller keeps it (as autograd saves it).
// The upstream gradient must have the output's shape: a mismatch is a compile error naming both.
#pragma once

#include <cstddef>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matmul.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/reduce.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/detail/backward_kernels.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/linear_layer.hpp>

namespace static_attention {

/// A backward pass takes an upstream gradient of its forward pass's output shape:
/// `grad_output_matches_output<shape<4, 2>, shape<4, 3>>` is false (a layer of 2 outputs given
/// a gradient of 3 columns).
template <class Output, class GradOutput>
inline constexpr bool grad_output_matches_output = shapes_equal<Output, GradOutput>;

namespace detail {

template <class InputShape, std::size_t In>
constexpr void check_backward_input() noexcept {
  static_assert(input_features_match<InputShape, In>,
                "backward(layer, input, grad_output) requires the input the layer ran on: N x in_features");
}

template <class Output, class GradOutput>
constexpr void check_grad_output() noexcept {
  static_assert(grad_output_matches_output<Output, GradOutput>,
                "backward(layer, input, grad_output) requires grad_output of the layer's output shape: "
                "N x out_features");
}

template <class A, class G>
constexpr void check_elementwise_backward() noexcept {
  static_assert(shapes_equal<shape_t<A>, shape_t<G>>,
                "gelu_backward(input, grad_output) and mse_loss_backward(input, target) require operands of one shape");
  static_assert(element_types_equal<value_type_t<A>, value_type_t<G>>,
                "gelu_backward and mse_loss_backward require operands of one element type");
  static_assert(is_floating_element<value_type_t<A>>,
                "gelu_backward and mse_loss_backward require a floating-point element type (float or double)");
}

}  // namespace detail

/// What a module's backward pass returns: `grad_input`, the gradient with respect to the input
/// (the shape of the input), and `grad`, the gradients of the parameters as a value of the
/// module's own type (`grad.weight`, `grad.bias`).
template <class GradInput, class Module>
struct backward_result {
  /// d loss / d input.
  GradInput grad_input;
  /// d loss / d each parameter, in the module's layout.
  Module grad;
};

/// The backward pass of `linear_layer` (y = x W + b, or x W without a bias) for one sequence of
/// N tokens: grad_input = grad_output W^T, grad.weight = x^T grad_output (in x out, the layer's
/// x @ W layout), grad.bias = the column sums of grad_output (torch's order of additions), as
/// torch's addmm (mm) backward computes them.
template <class T, std::size_t In, std::size_t Out, bool Bias, std::size_t N, std::size_t D, std::size_t N2,
          std::size_t C>
constexpr backward_result<matrix<T, N, In>, linear_layer<T, In, Out, Bias>> backward(
    const linear_layer<T, In, Out, Bias>& layer, const matrix<T, N, D>& input,
    const matrix<T, N2, C>& grad_output) noexcept {
  detail::check_backward_input<shape<N, D>, In>();
  detail::check_grad_output<shape<N, Out>, shape<N2, C>>();
  backward_result<matrix<T, N, In>, linear_layer<T, In, Out, Bias>> r{};
  if constexpr (D == In && N2 == N && C == Out) {
    r.grad_input = matmul(grad_output, transpose(layer.weight));
    r.grad.weight = matmul(transpose(input), grad_output);
    if constexpr (Bias) r.grad.bias = sum(grad_output, dim<0>, keepdim);
  }
  return r;
}

/// The backward pass of `linear_layer` for a batch: the input gradient per item, the parameter
/// gradients summed over every token of the batch (torch's over the flattened B x N rows).
template <class T, std::size_t In, std::size_t Out, bool Bias, std::size_t B, std::size_t N, std::size_t D,
          std::size_t B2, std::size_t N2, std::size_t C>
constexpr backward_result<tensor<T, B, N, In>, linear_layer<T, In, Out, Bias>> backward(
    const linear_layer<T, In, Out, Bias>& layer, const tensor<T, B, N, D>& input,
    const tensor<T, B2, N2, C>& grad_output) noexcept {
  detail::check_backward_input<shape<N, D>, In>();
  detail::check_grad_output<shape<B, N, Out>, shape<B2, N2, C>>();
  backward_result<tensor<T, B, N, In>, linear_layer<T, In, Out, Bias>> r{};
  if constexpr (D == In && B2 == B && N2 == N && C == Out) {
    r.grad_input = matmul(grad_output, transpose(layer.weight));
    const auto rows = detail::rows_of(grad_output);
    r.grad.weight = matmul(transpose(detail::rows_of(input)), rows);
    if constexpr (Bias) r.grad.bias = sum(rows, dim<0>, keepdim);
  }
  return r;
}

/// The backward pass of gelu (the book's tanh approximation): grad_output times gelu'(input),
/// computed step by step as autograd differentiates the book's GELU module.
template <dense A, dense G>
constexpr A gelu_backward(const A& input, const G& grad_output) noexcept {
  detail::check_elementwise_backward<A, G>();
  A out;
  if constexpr (shapes_equal<shape_t<A>, shape_t<G>> && element_types_equal<value_type_t<A>, value_type_t<G>> &&
                is_floating_element<value_type_t<A>>)
    for (std::size_t k = 0; k < A::size; ++k)
      out.elems[k] =
          detail::gelu_grad(input.elems[k], grad_output.elems[k], detail::gelu_sqrt_2_over_pi<value_type_t<A>>);
  return out;
}

/// The backward pass of mse_loss(input, target) (reduction "mean"): (2 / n) (input - target)
/// grad_output, as ATen's mse_loss_backward. grad_output is the upstream gradient of the loss:
/// 1 for `loss.backward()`.
template <dense A, dense B>
constexpr A mse_loss_backward(const A& input, const B& target, value_type_t<A> grad_output = 1) noexcept {
  detail::check_elementwise_backward<A, B>();
  using T = value_type_t<A>;
  A out;
  if constexpr (shapes_equal<shape_t<A>, shape_t<B>> && element_types_equal<T, value_type_t<B>> &&
                is_floating_element<T>) {
    const auto norm = static_cast<T>(2.0 / static_cast<double>(A::size));
    for (std::size_t k = 0; k < A::size; ++k)
      out.elems[k] =
          detail::rounded_product(detail::rounded_product(norm, input.elems[k] - target.elems[k]), grad_output);
  }
  return out;
}

}  // namespace static_attention

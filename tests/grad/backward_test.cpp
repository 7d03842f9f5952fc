// SPDX-License-Identifier: BSL-1.0
// The backward passes of linear_layer (one sequence and a batch), gelu and mse_loss against
// torch 1.13's autograd on random shapes (grad_reference.hpp): in static_assert and at run time
// (the "constexpr test" pattern), float within 4 ulps and double within 4 ulps of torch's.
#include <cstddef>
#include <limits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/backward.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/loss.hpp>

#include <doctest/doctest.h>

#include "constexpr_check.hpp"
#include "grad_reference.hpp"

namespace sa = static_attention;
namespace ref = reference::grad;
namespace {

// A reference array (row-major doubles) as a matrix or a tensor of T.
template <class T, std::size_t R, std::size_t C>
constexpr sa::matrix<T, R, C> to_matrix(const double* values) {
  sa::matrix<T, R, C> m;
  for (std::size_t k = 0; k < R * C; ++k) m.elems[k] = static_cast<T>(values[k]);
  return m;
}
template <class T, std::size_t B, std::size_t N, std::size_t D>
constexpr sa::tensor<T, B, N, D> to_tensor(const double* values) {
  sa::tensor<T, B, N, D> t;
  for (std::size_t k = 0; k < B * N * D; ++k) t.elems[k] = static_cast<T>(values[k]);
  return t;
}

// Every element within `ulps` units of roundoff of torch's, relative to max(1, |expected|).
template <class M>
constexpr bool close(const M& got, const double* expected, int ulps) {
  using T = sa::value_type_t<M>;
  for (std::size_t k = 0; k < M::size; ++k) {
    const T e = static_cast<T>(expected[k]);
    const T d = got.elems[k] > e ? got.elems[k] - e : e - got.elems[k];
    const T mag = e < 0 ? -e : e;
    if (!(d <= static_cast<T>(ulps) * std::numeric_limits<T>::epsilon() * (mag > 1 ? mag : T{1}))) return false;
  }
  return true;
}

// The reference arrays of one case, by name.
struct linear_refs {
  const double *input, *weight, *bias, *grad_output, *grad_input, *grad_weight, *grad_bias;
};

// nn.Linear(5, 3) on 4 tokens: grad_input, weight.grad (torch's out x in, so transposed) and bias.grad.
template <class T>
constexpr bool linear_case(const linear_refs& inputs) {
  const auto layer =
      sa::linear_layer<T, 5, 3>::from_linear(to_matrix<T, 3, 5>(inputs.weight), to_matrix<T, 1, 3>(inputs.bias));
  const auto r = sa::backward(layer, to_matrix<T, 4, 5>(inputs.input), to_matrix<T, 4, 3>(inputs.grad_output));
  return close(r.grad_input, inputs.grad_input, 4) && close(sa::transpose(r.grad.weight), inputs.grad_weight, 4) &&
         close(r.grad.bias, inputs.grad_bias, 4);
}

// nn.Linear(5, 3, bias=False): the bias changes neither grad_input nor weight.grad, so torch's
// are the biased case's.
template <class T>
constexpr bool linear_no_bias_case(const linear_refs& inputs) {
  const auto layer = sa::linear_layer<T, 5, 3, false>::from_linear(to_matrix<T, 3, 5>(inputs.weight));
  const auto r = sa::backward(layer, to_matrix<T, 4, 5>(inputs.input), to_matrix<T, 4, 3>(inputs.grad_output));
  return close(r.grad_input, inputs.grad_input, 4) && close(sa::transpose(r.grad.weight), inputs.grad_weight, 4);
}

template <class T>
constexpr bool linear_batch_case(const linear_refs& inputs) {
  const auto layer =
      sa::linear_layer<T, 4, 2>::from_linear(to_matrix<T, 2, 4>(inputs.weight), to_matrix<T, 1, 2>(inputs.bias));
  const auto r = sa::backward(layer, to_tensor<T, 2, 3, 4>(inputs.input), to_tensor<T, 2, 3, 2>(inputs.grad_output));
  return close(r.grad_input, inputs.grad_input, 4) && close(sa::transpose(r.grad.weight), inputs.grad_weight, 4) &&
         close(r.grad.bias, inputs.grad_bias, 4);
}

}  // namespace

namespace {
constexpr linear_refs linear_f32{ref::linear_f32_input,       ref::linear_f32_weight,     ref::linear_f32_bias,
                                 ref::linear_f32_grad_output, ref::linear_f32_grad_input, ref::linear_f32_grad_weight,
                                 ref::linear_f32_grad_bias};
constexpr linear_refs linear_f64{ref::linear_f64_input,       ref::linear_f64_weight,     ref::linear_f64_bias,
                                 ref::linear_f64_grad_output, ref::linear_f64_grad_input, ref::linear_f64_grad_weight,
                                 ref::linear_f64_grad_bias};
constexpr linear_refs batch_f32{ref::linear_batch_f32_input,      ref::linear_batch_f32_weight,
                                ref::linear_batch_f32_bias,       ref::linear_batch_f32_grad_output,
                                ref::linear_batch_f32_grad_input, ref::linear_batch_f32_grad_weight,
                                ref::linear_batch_f32_grad_bias};
constexpr linear_refs batch_f64{ref::linear_batch_f64_input,      ref::linear_batch_f64_weight,
                                ref::linear_batch_f64_bias,       ref::linear_batch_f64_grad_output,
                                ref::linear_batch_f64_grad_input, ref::linear_batch_f64_grad_weight,
                                ref::linear_batch_f64_grad_bias};

template <class T>
constexpr bool gelu_case(const double* input, const double* grad_output, const double* grad_input) {
  return close(sa::gelu_backward(to_matrix<T, 3, 8>(input), to_matrix<T, 3, 8>(grad_output)), grad_input, 4);
}

template <class T>
constexpr bool mse_case(const double* input, const double* target, const double* grad_input) {
  return close(sa::mse_loss_backward(to_matrix<T, 2, 3>(input), to_matrix<T, 2, 3>(target)), grad_input, 2);
}
}  // namespace

TEST_CASE("linear_layer backward: autograd's grad_input, weight.grad and bias.grad") {
  SA_CHECK_BOTH(linear_case<float>(linear_f32));
  SA_CHECK_BOTH(linear_case<double>(linear_f64));
  SA_CHECK_BOTH(linear_no_bias_case<float>(linear_f32));
  SA_CHECK_BOTH(linear_no_bias_case<double>(linear_f64));
}

TEST_CASE("linear_layer backward on a batch: parameter gradients summed over every token") {
  SA_CHECK_BOTH(linear_batch_case<float>(batch_f32));
  SA_CHECK_BOTH(linear_batch_case<double>(batch_f64));
}

TEST_CASE("gelu_backward: the book's GELU differentiated by autograd, on [-6, 6]") {
  SA_CHECK_BOTH(gelu_case<float>(ref::gelu_f32_input, ref::gelu_f32_grad_output, ref::gelu_f32_grad_input));
  SA_CHECK_BOTH(gelu_case<double>(ref::gelu_f64_input, ref::gelu_f64_grad_output, ref::gelu_f64_grad_input));
}

TEST_CASE("mse_loss_backward: nn.MSELoss()(input, target).backward()") {
  SA_CHECK_BOTH(mse_case<float>(ref::mse_f32_input, ref::mse_f32_target, ref::mse_f32_grad_input));
  SA_CHECK_BOTH(mse_case<double>(ref::mse_f64_input, ref::mse_f64_target, ref::mse_f64_grad_input));
}

TEST_CASE("backward: hand-derived values") {
  // y = x W + b with x = [1, 2], W = [[1, 0, 2], [0, 1, -1]], upstream gradient [1, 1, 1]:
  // grad_input = g W^T = [3, 0], weight.grad = x^T g, bias.grad = g.
  constexpr sa::linear_layer<double, 2, 3> layer{sa::matrix<double, 2, 3>{{1, 0, 2}, {0, 1, -1}},
                                                 sa::matrix<double, 1, 3>{{5, 6, 7}}};
  constexpr auto r = sa::backward(layer, sa::matrix<double, 1, 2>{{1, 2}}, sa::matrix<double, 1, 3>{{1, 1, 1}});
  static_assert(r.grad_input == sa::matrix<double, 1, 2>{{3, 0}});
  static_assert(r.grad.weight == sa::matrix<double, 2, 3>{{1, 1, 1}, {2, 2, 2}});
  static_assert(r.grad.bias == sa::matrix<double, 1, 3>{{1, 1, 1}});
  // gelu'(0) = 0.5; MSE of one value: d/dx (x - t)^2 = 2 (x - t).
  static_assert(sa::gelu_backward(sa::matrix<double, 1, 1>{{0.0}}, sa::matrix<double, 1, 1>{{1.0}})(0, 0) == 0.5);
  static_assert(sa::mse_loss_backward(sa::matrix<float, 1, 1>{{3.0f}}, sa::matrix<float, 1, 1>{{1.0f}})(0, 0) == 4.0f);
  CHECK(r.grad.weight(1, 2) == 2.0);
}

// SPDX-License-Identifier: BSL-1.0
// torch 1.13's variance on the CPU, in its order and precision (float and double inputs both
// accumulate in double):
//  * over one dimension, WelfordOps (aten/src/ATen/native/SharedReduceOps.h) element by element
//    through binary_kernel_reduce; torch's AVX2 build fuses `m2 + delta * new_delta` into one
//    FMA, so it is fused here too (exact_fma.hpp, the same bits in both worlds; finite inputs
//    below 2^995 in magnitude, as exact_fma.hpp requires);
//  * over all elements, std_var_all_cpu (ReduceOps.cpp): the mean from the float sum, then the
//    sum of (x - mean)^2 in double, left to right.
// Every other multiply and add is rounded on its own (no FMA contraction), as in the constant
// evaluator.
#pragma once

#include <cstdint>

#include <static_attention/core/detail/exact_fma.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::torch_var {

// WelfordOps::reduce over x[0], x[stride], ... x[(n - 1) * stride], then project().
template <class T>
constexpr T welford(const T* x, std::int64_t n, std::int64_t stride, double correction) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  double mean = 0, m2 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double data = static_cast<double>(x[i * stride]);
    const double new_n = static_cast<double>(i + 1);
    const double delta = data - mean;
    const double new_mean = mean + delta / new_n;
    const double new_delta = data - new_mean;
    m2 = torch_normal::fused<double>(delta, new_delta, m2).value;
    mean = new_mean;
  }
  const double nf = static_cast<double>(n);
  const double divisor = nf > correction ? nf - correction : 0.0;
  return static_cast<T>(m2 / divisor);
}

// std_var_all_cpu: ((x - mean)^2).sum() / max(0, n - correction), mean = x.mean() in T.
template <class T>
constexpr T two_pass(const T* x, std::int64_t n, T mean_t, double correction) noexcept {
  SA_DETAIL_NO_FP_CONTRACT
  const double mean = static_cast<double>(mean_t);
  double sum_dx2 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double dx = static_cast<double>(x[i]) - mean;
    const double sq = dx * dx;
    sum_dx2 += sq;
  }
  sum_dx2 = 0.0 + sum_dx2;
  const double nf = static_cast<double>(n);
  const double divisor = nf - correction > 0 ? nf - correction : 0.0;
  return static_cast<T>(sum_dx2 / divisor);
}

}  // namespace static_attention::detail::torch_var

#include <static_attention/core/detail/math_end.hpp>

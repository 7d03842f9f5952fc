// SPDX-License-Identifier: BSL-1.0
// The numerics behind random.hpp's normal(): PyTorch 1.13's CPU `tensor.normal_` kernels,
// Box-Muller in constexpr code (no heap, no I/O, no <cmath>):
//  * float, n >= 16: normal_fill_16_AVX2, PyTorch's AVX2 kernel, with avx_mathfun.h's Cephes log
//    and sincos and the FMAs GCC formed in libtorch_cpu.so (cephes_float.hpp): bit for bit.
//  * double: normal_fill_16<double> (n >= 16) and at::normal_distribution<double> (n < 16, for
//    float and double tensors alike), which call glibc's log and sincos. log is Arm's
//    optimized-routines log, which glibc's is (normal_log.hpp): the same bits. sincos is this
//    library's own, correctly rounded in practice (sincos.hpp), and glibc's almost always is
//    too: the rate at which the two differ is in docs/accuracy.md ("torch's double normal_").
//  * Square roots correctly rounded (normal_sqrt.hpp), as the kernels' vsqrtps and vsqrtpd are;
//    mean and std applied with one exact fused multiply-add (exact_fma.hpp), as torch's are.
//
// Constant-evaluation cost (a model is initialised inside a static_assert): see exact_fma.hpp
// and sincos.hpp; tests/random/normal_budget_static.cpp holds the cost to a budget.
// FMA contraction is off throughout (GCC: optimize pragma; Clang: fp contract pragma for the
// whole file), so exactly the FMAs written are fused.
#pragma once

#include <cstddef>
#include <utility>

#include <static_attention/core/detail/cephes_float.hpp>
#include <static_attention/core/detail/exact_fma.hpp>
#include <static_attention/core/detail/math_common.hpp>
#include <static_attention/core/detail/normal_log.hpp>
#include <static_attention/core/detail/normal_sqrt.hpp>
#include <static_attention/core/detail/sincos.hpp>

#include <static_attention/core/detail/math_begin.hpp>

namespace static_attention::detail::torch_normal {

// One lane pair of normal_fill_16_AVX2, first[0] and first[8]: u1 = 1 - first[0] (in (0, 1]),
// r = sqrt(-2 log u1), theta = 2 pi first[8]; first[0] = r cos(theta) * std + mean and
// first[8] = r sin(theta) * std + mean, each one FMA.
constexpr void box_muller_avx2(float* first, float mean, float std_dev) noexcept {
  const sin_cos_f sc = cephes_sincos(two_pi_f * first[8]);
  const float radius = sqrt_f(-2.0f * cephes_log(1.0f - first[0]));
  first[0] = fused(radius * sc.cos, std_dev, mean).value;
  first[8] = fused(radius * sc.sin, std_dev, mean).value;
}

inline constexpr double two_pi_d = 0x1.921fb54442d18p+2;  // 2.0f * c10::pi<double>

// One element pair of normal_fill_16<double>, first[0] and first[8]: u1 = 1 - first[0],
// r = sqrt(-2 log u1), theta = 2 pi first[8]; first[0] = r cos(theta) * std + mean and
// first[8] = r sin(theta) * std + mean, each one FMA.
constexpr void box_muller_double(double* first, double mean, double std_dev) noexcept {
  const sin_cos_d sc = sincos_0_2pi(two_pi_d * first[8]);
  const double radius = sqrt_d(-2.0 * arm_log(1.0 - first[0]));
  first[0] = fused(radius * sc.cos, std_dev, mean).value;
  first[8] = fused(radius * sc.sin, std_dev, mean).value;
}

// at::normal_distribution<double>'s pair from its two uniforms, the first drawn giving the
// angle and the second the radius: {r sin(theta), r cos(theta)}.
[[nodiscard]] constexpr sin_cos_d box_muller_pair(double u_angle, double u_radius) noexcept {
  const sin_cos_d sc = sincos_0_2pi(two_pi_d * u_angle);
  const double radius = sqrt_d(-2.0 * arm_log(1.0 - u_radius));
  return {radius * sc.sin, radius * sc.cos};
}

// Box-Muller on one block of 16 (pass std::make_index_sequence<8>): j pairs with j + 8.
template <std::size_t... J>
constexpr void box_muller_16(float* block, float mean, float std_dev, std::index_sequence<J...>) noexcept {
  (box_muller_avx2(block + J, mean, std_dev), ...);
}
template <std::size_t... J>
constexpr void box_muller_16(double* block, double mean, double std_dev, std::index_sequence<J...>) noexcept {
  (box_muller_double(block + J, mean, std_dev), ...);
}

}  // namespace static_attention::detail::torch_normal

#include <static_attention/core/detail/math_end.hpp>

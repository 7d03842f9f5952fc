// SPDX-License-Identifier: BSL-1.0
// Interval transfer functions of LayerNorm and GELU, with the error of their T forward passes.
#pragma once

#include <cstddef>

#include <static_attention/core/math.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/verify/detail/ibp_ops.hpp>

namespace static_attention::verify::detail {

/// [lo, hi] squared.
constexpr interval<double> square(const interval<double>& v) noexcept {
  const double a = v.lo * v.lo, b = v.hi * v.hi;
  const double lo = v.lo > 0 ? a : (v.hi < 0 ? b : 0.0);
  return {down(lo), up(max2(a, b))};
}

/// x - mean(x) for each of the D values of a row: each a linear function of the row, bounded
/// exactly (x_j with weight 1 - 1/D, the others -1/D), then widened by the T error of the forward
/// pass's mean (a sum of D and a division) and subtraction.
template <class T, class P, std::size_t D>
constexpr void ibp_centered(const interval<double>* x, interval<double>* d) noexcept {
  double sum_lo = 0, sum_hi = 0, total_mag = 0;
  for (std::size_t k = 0; k < D; ++k) {
    sum_lo += x[k].lo;
    sum_hi += x[k].hi;
    total_mag += mag(x[k]);
  }
  const double n = static_cast<double>(D);
  const double mean_error = gamma(unit<T>, D + 1) * total_mag / n * 1.01 + tiny<T>;
  for (std::size_t j = 0; j < D; ++j) {
    double lo = x[j].lo - (x[j].lo + (sum_hi - x[j].hi)) / n;
    double hi = x[j].hi - (x[j].hi + (sum_lo - x[j].lo)) / n;
    const double own = gamma(0x1p-53, D + 8) * (total_mag + mag(x[j])) * 2;
    widen<P>(lo, hi, own + mean_error * (1 + unit<T>)+unit<T> * 1.01 * (mag(interval<double>{lo, hi}) + mean_error));
    d[j] = {lo, hi};
  }
}

/// sqrt(var + eps) of the centred row d, with the T error of the squares, their sum, the
/// division, the addition of eps and sqrt; under a fixed-variance policy (a planted fault), the
/// variance of the row's midpoint instead.
template <class T, class P, std::size_t D>
constexpr interval<double> ibp_stddev(const interval<double>* x, const interval<double>* d) noexcept {
  const double eps = static_cast<double>(layer_norm<T, D>::eps);
  double var_lo = 0, var_hi = 0;
  if constexpr (P::layer_norm_fixed_variance) {
    double mean = 0;
    for (std::size_t k = 0; k < D; ++k) mean += x[k].lo * 0.5 + x[k].hi * 0.5;
    mean /= static_cast<double>(D);
    for (std::size_t k = 0; k < D; ++k) {
      const double c = x[k].lo * 0.5 + x[k].hi * 0.5 - mean;
      var_lo += c * c;
    }
    var_hi = var_lo;
  } else {
    for (std::size_t k = 0; k < D; ++k) {
      const interval<double> sq = square(d[k]);
      var_lo += sq.lo;
      var_hi += sq.hi;
    }
  }
  const double n = static_cast<double>(D);
  const double g = gamma(unit<T>, D + 4) * 1.01 + gamma(0x1p-53, D + 4);
  const double lo = down((var_lo / n) * (1 - g) - tiny<T> * n + eps);
  const double hi = up((var_hi / n) * (1 + g) + tiny<T> * n + eps);
  const double sd_lo = down(static_attention::sqrt(lo)) * (1 - 2.02 * unit<T>);
  const double sd_hi = up(static_attention::sqrt(hi)) * (1 + 2.02 * unit<T>);
  return {sd_lo, sd_hi};
}

/// LayerNorm of each row: scale * (x - mean) / sqrt(var + eps) + shift.
template <class T, class P, std::size_t N, std::size_t D>
constexpr dbox<N, D> step_norm(const dbox<N, D>& x, const layer_norm<T, D>& ln) noexcept {
  dbox<N, D> y;
  for (std::size_t i = 0; i < N; ++i) {
    interval<double> d[D]{};
    ibp_centered<T, P, D>(x.elems + i * D, d);
    const interval<double> sd = ibp_stddev<T, P, D>(x.elems + i * D, d);
    for (std::size_t j = 0; j < D; ++j) {
      const double lo = d[j].lo / (d[j].lo >= 0 ? sd.hi : sd.lo);
      const double hi = d[j].hi / (d[j].hi >= 0 ? sd.lo : sd.hi);
      const double s = static_cast<double>(ln.scale.elems[j]);
      const double b = static_cast<double>(ln.shift.elems[j]);
      double ylo = (s >= 0 ? s * lo : s * hi) + b;
      double yhi = (s >= 0 ? s * hi : s * lo) + b;
      const double m = mag(s) * mag(interval<double>{lo, hi});
      widen<P>(ylo, yhi, (m * 2.02 + (m + mag(b)) * 1.01) * unit<T> + m * 0x1p-50 + 3 * tiny<T>);
      y.elems[i * D + j] = {ylo, yhi};
    }
  }
  return y;
}

/// GELU's argument of tanh, sqrt(2 / pi) (x + 0.044715 x^3), with T's constants, in double.
template <class T>
constexpr double gelu_arg(double x) noexcept {
  const double c = static_cast<double>(static_attention::detail::gelu_sqrt_2_over_pi<T>);
  return c * (x + static_cast<double>(static_cast<T>(0.044715)) * (x * x * x));
}
/// GELU with T's constants, in double, and a bound of its double rounding error.
template <class T>
constexpr double gelu_exact(double x) noexcept {
  return 0.5 * x * (1 + static_attention::tanh(gelu_arg<T>(x)));
}
/// Relative allowance of gelu_exact's double arithmetic (a dozen roundings, tanh within 2 ulp).
inline constexpr double gelu_double_error = 0x1p-46;

/// The largest error of the T forward pass of GELU (nn/gelu.hpp) at any x in v, whose exact
/// image has magnitude at most y_mag: each rounding propagated through what follows it.
template <class T>
constexpr double gelu_forward_error(const interval<double>& v, double y_mag) noexcept {
  const double u = unit<T>;
  const double m = mag(v);
  const double inner = m + 0.0448 * m * m * m;
  const double e_inner = 0.0448 * 2.02 * u * m * m * m + 2.02 * u * inner;
  const double e_arg = 0.7980 * e_inner + 1.01 * u * 0.7980 * inner;
  // |tanh'| at the smallest |argument| the T pass may reach.
  const double a_lo = gelu_arg<T>(v.lo), a_hi = gelu_arg<T>(v.hi);
  const double least = (a_lo <= 0 && a_hi >= 0) ? 0.0 : min2(mag(a_lo), mag(a_hi));
  const double t = static_attention::tanh(max2(least - e_arg * 1.01 - 1e-9, 0.0));
  const double slope = min2(1.0, (1 - t * t) * 1.0001 + 1e-12);
  const double e_one_plus_t = e_arg * slope + 4.04 * u + 2.02 * u;
  return 0.5 * m * e_one_plus_t + 1.01 * u * y_mag + 4 * tiny<T>;
}

/// GELU of one interval: the exact image (GELU falls to its minimum near -0.7518, then rises),
/// widened by the T error.
template <class T, class P>
constexpr interval<double> ibp_gelu(const interval<double>& v) noexcept {
  const double ga = gelu_exact<T>(v.lo), gb = gelu_exact<T>(v.hi);
  double hi = max2(ga, gb);
  double lo = min2(ga, gb);
  if (v.lo < -0.74 && v.hi > -0.76) lo = -0.17003;  // below the minimum, -0.16997
  const double y_mag = max2(mag(lo), mag(hi));
  widen<P>(lo, hi, gelu_double_error * (mag(v) + y_mag) + gelu_forward_error<T>(v, y_mag) + 0x1p-1000);
  return {lo, hi};
}

/// GELU of every interval.
template <class T, class P, std::size_t R, std::size_t C>
constexpr dbox<R, C> step_gelu(const dbox<R, C>& x) noexcept {
  dbox<R, C> y;
  for (std::size_t k = 0; k < R * C; ++k) y.elems[k] = ibp_gelu<T, P>(x.elems[k]);
  return y;
}

}  // namespace static_attention::verify::detail

// SPDX-License-Identifier: BSL-1.0
// Zonotope transfer functions of softmax, LayerNorm and GELU: the mean-value form, with the
// Jacobian's range over the box from the interval domain.
#pragma once

#include <cstddef>

#include <static_attention/core/math.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/verify/detail/ibp_nonlinear.hpp>
#include <static_attention/verify/detail/zonotope_ops.hpp>

namespace static_attention::verify::detail {

/// The product of two intervals, rounded outward.
constexpr interval<double> imul(const interval<double>& a, const interval<double>& b) noexcept {
  const double p1 = a.lo * b.lo, p2 = a.lo * b.hi, p3 = a.hi * b.lo, p4 = a.hi * b.hi;
  return {down(min2(min2(p1, p2), min2(p3, p4))), up(max2(max2(p1, p2), max2(p3, p4)))};
}
/// The largest |v - x| over v in iv.
constexpr double distance(const interval<double>& iv, double x) noexcept {
  return up(max2(mag(iv.hi - x), mag(x - iv.lo)));
}

/// Writes y = centre + J (x - c) for the affine forms x_k (k < n, at indices xi[k]) into element
/// o of y, with J row jrow (n values), plus extra to the error term.
template <class T, class P, std::size_t R, std::size_t C, std::size_t K>
constexpr void z_linearised(zmat<R, C, K>& y, std::size_t o, double centre, const double* jrow, const zmat<R, C, K>& x,
                            const std::size_t* xi, std::size_t n, double extra) noexcept {
  double e = 0, s = 0;
  double* g = y.g + o * K;
  for (std::size_t t = 0; t < K; ++t) g[t] = 0;
  for (std::size_t k = 0; k < n; ++k) {
    e += mag(jrow[k]) * x.e[xi[k]];
    s += mag(jrow[k]) * z_radius(x, xi[k]);
    const double* gx = x.g + xi[k] * K;
    for (std::size_t t = 0; t < K; ++t) g[t] += jrow[k] * gx[t];
  }
  y.c[o] = centre;
  y.e[o] = P::round_inward ? e : up(e + extra + s * gamma(0x1p-53, n + 4) * 2);
}

/// One softmax row of len scores at row offset r0 (the rest of the row stays 0).
template <class T, class P, std::size_t N, std::size_t K>
constexpr void z_softmax_row(const zmat<N, N, K>& s, zmat<N, N, K>& y, std::size_t r0, std::size_t len) noexcept {
  interval<double> sbox[N]{}, point[N]{}, ybox[N]{}, yc[N]{};
  std::size_t xi[N]{};
  double rad[N]{};
  for (std::size_t k = 0; k < len; ++k) {
    xi[k] = r0 + k;
    rad[k] = z_radius(s, xi[k]);
    sbox[k] = {down(s.c[xi[k]] - rad[k]), up(s.c[xi[k]] + rad[k])};
    point[k] = {s.c[xi[k]], s.c[xi[k]]};
  }
  ibp_softmax_row<T, P>(sbox, ybox, len);      // the range of the T softmax over the box
  ibp_softmax_row<double, P>(point, yc, len);  // the exact softmax at the centre
  double mid[N]{};
  for (std::size_t k = 0; k < len; ++k) mid[k] = yc[k].lo * 0.5 + yc[k].hi * 0.5;
  // T's rounding of the forward pass, as ibp_softmax_row widens by it.
  double top = -inf, bottom = inf;
  for (std::size_t k = 0; k < len; ++k) {
    top = max2(top, sbox[k].hi);
    bottom = min2(bottom, sbox[k].lo);
  }
  const double rel = unit<T> * (2 * (top - bottom + 2) + static_cast<double>(len) + 3) * 1.01;
  for (std::size_t j = 0; j < len; ++j) {
    double jrow[N]{};
    double rem = 0;
    for (std::size_t k = 0; k < len; ++k) {
      const double delta = j == k ? 1.0 : 0.0;
      jrow[k] = mid[j] * (delta - mid[k]);
      const interval<double> dk{delta - ybox[k].hi, delta - ybox[k].lo};
      rem += distance(imul(ybox[j], dk), jrow[k]) * rad[k];
    }
    const double centre_error = distance(yc[j], mid[j]);
    const double forward = rel * ybox[j].hi + tiny<T> * static_cast<double>(len + 3);
    z_linearised<T, P>(y, r0 + j, mid[j], jrow, s, xi, len, up(rem + centre_error + forward));
  }
}

/// Softmax of every row (the first i + 1 scores of row i when Causal).
template <class T, class P, bool Causal, std::size_t N, std::size_t K>
constexpr zmat<N, N, K> step_softmax(const zmat<N, N, K>& s) noexcept {
  zmat<N, N, K> y;
  for (std::size_t i = 0; i < N; ++i) z_softmax_row<T, P>(s, y, i * N, row_length<Causal, P>(i, N));
  return y;
}

/// The T forward pass's error of LayerNorm element j, for a row whose centred values lie in d,
/// magnitudes of x in x, standard deviation in sd (each step's rounding pushed through the rest).
template <class T, std::size_t D>
constexpr double layer_norm_forward_error(const interval<double>* x, const interval<double>* d,
                                          const interval<double>& sd, double scale, double shift,
                                          std::size_t j) noexcept {
  const double u = unit<T>;
  double total = 0, var_mag = 0;
  for (std::size_t k = 0; k < D; ++k) {
    total += mag(x[k]);
    var_mag += mag(d[k]) * mag(d[k]);
  }
  const double n = static_cast<double>(D);
  const double e_mean = gamma(u, D + 1) * total / n * 1.01 + tiny<T>;
  double e_var = gamma(u, D + 3) * 1.01 * var_mag / n + n * tiny<T>;
  for (std::size_t k = 0; k < D; ++k) {
    const double e_d = e_mean * (1 + u) + 1.01 * u * (mag(d[k]) + e_mean);
    e_var += 2.02 * e_d * (mag(d[k]) + e_d) / n;
  }
  const double ej = e_mean * (1 + u) + 1.01 * u * (mag(d[j]) + e_mean);
  const double rel_sd = e_var / (2 * sd.lo * sd.lo) * 1.01 + 3.03 * u;  // var + eps, sqrt
  const double nrm = (mag(d[j]) + ej) / sd.lo;
  const double e_n = ej / sd.lo + nrm * rel_sd * 1.01 + 1.01 * u * nrm;  // and the division
  const double y = mag(scale) * nrm;
  return mag(scale) * e_n + 1.01 * u * y + 1.01 * u * (y + mag(shift)) + 2 * tiny<T>;
}

/// Jacobian row j of LayerNorm at a point: scale_j / sd (delta_jk - 1/D - n_j n_k / D).
template <std::size_t D>
constexpr void layer_norm_jacobian_row(double scale, double sd, const double* n, std::size_t j, double* row) noexcept {
  const double nd = static_cast<double>(D);
  for (std::size_t k = 0; k < D; ++k) row[k] = scale / sd * ((j == k ? 1.0 : 0.0) - 1 / nd - n[j] * n[k] / nd);
}

/// The centred values x_k - mean(x) of row i and sqrt(var + eps) over the zonotope: relational,
/// so that the mean's symbols cancel (var's linear part on the symbols, its quadratic part
/// at most the mean square radius). Under a fixed-variance policy, the centre's variance.
template <class T, class P, std::size_t N, std::size_t D, std::size_t K>
constexpr interval<double> z_centred_row(const zmat<N, D, K>& x, std::size_t i, interval<double>* d) noexcept {
  const double nd = static_cast<double>(D);
  double cmean = 0, emean = 0, gmean[K]{};
  for (std::size_t k = 0; k < D; ++k) {
    cmean += x.c[i * D + k];
    emean += x.e[i * D + k];
    for (std::size_t t = 0; t < K; ++t) gmean[t] += x.g[(i * D + k) * K + t];
  }
  cmean /= nd;
  emean /= nd;
  for (std::size_t t = 0; t < K; ++t) gmean[t] /= nd;
  double lin[K]{}, var_c = 0, lin_e = 0, quad = 0, scale_mag = 0;
  for (std::size_t k = 0; k < D; ++k) {
    const double dc = x.c[i * D + k] - cmean;
    const double* g = x.g + (i * D + k) * K;
    double rd = x.e[i * D + k] + emean;
    for (std::size_t t = 0; t < K; ++t) {
      rd += mag(g[t] - gmean[t]);
      lin[t] += 2 * dc * (g[t] - gmean[t]) / nd;
    }
    rd = up(rd * (1 + gamma(0x1p-53, K + D + 4)) + mag(dc) * 0x1p-50 + mag(cmean) * 0x1p-50);
    d[k] = {down(dc - rd), up(dc + rd)};
    var_c += dc * dc / nd;
    lin_e += 2 * mag(dc) * (x.e[i * D + k] + emean) / nd;
    quad += rd * rd / nd;
    scale_mag += (mag(dc) + rd) * (mag(dc) + rd) / nd;
  }
  double spread = lin_e;
  for (std::size_t t = 0; t < K; ++t) spread += mag(lin[t]);
  const double slack = scale_mag * gamma(0x1p-53, K + 3 * D + 8) * 4;
  const double eps = static_cast<double>(layer_norm<T, D>::eps);
  double lo = max2(down(var_c - spread - slack), 0.0), hi = up(var_c + spread + quad + slack);
  if constexpr (P::layer_norm_fixed_variance) lo = hi = var_c;
  return {down(static_attention::sqrt(down(lo + eps))), up(static_attention::sqrt(up(hi + eps)))};
}

/// LayerNorm of one row (row i), by the mean-value form. Under a fixed-variance policy (a planted
/// fault), the affine map of the centre's standard deviation, as if the variance did not move.
template <class T, class P, std::size_t N, std::size_t D, std::size_t K>
constexpr void z_layer_norm_row(const zmat<N, D, K>& x, zmat<N, D, K>& y, std::size_t i,
                                const layer_norm<T, D>& ln) noexcept {
  interval<double> xb[D]{}, d[D]{}, pc[D]{}, dc[D]{};
  std::size_t xi[D]{};
  double rad[D]{};
  for (std::size_t k = 0; k < D; ++k) {
    xi[k] = i * D + k;
    rad[k] = z_radius(x, xi[k]);
    xb[k] = {down(x.c[xi[k]] - rad[k]), up(x.c[xi[k]] + rad[k])};
    pc[k] = {x.c[xi[k]], x.c[xi[k]]};
  }
  const interval<double> sd = z_centred_row<T, P>(x, i, d);  // ranges over the zonotope
  ibp_centered<double, P, D>(pc, dc);                        // and at the centre
  const interval<double> sdc = ibp_stddev<double, P, D>(pc, dc);
  const double sd_mid = sdc.lo * 0.5 + sdc.hi * 0.5;
  double nmid[D]{};
  interval<double> nbox[D]{};
  for (std::size_t k = 0; k < D; ++k) {
    nmid[k] = (dc[k].lo * 0.5 + dc[k].hi * 0.5) / sd_mid;
    nbox[k] = {down(d[k].lo / (d[k].lo >= 0 ? sd.hi : sd.lo)), up(d[k].hi / (d[k].hi >= 0 ? sd.lo : sd.hi))};
  }
  const interval<double> inv_sd{down(1 / sd.hi), up(1 / sd.lo)};
  const double nd = static_cast<double>(D);
  for (std::size_t j = 0; j < D; ++j) {
    const double scale = static_cast<double>(ln.scale.elems[j]), shift = static_cast<double>(ln.shift.elems[j]);
    double jrow[D]{};
    layer_norm_jacobian_row<D>(scale, sd_mid, nmid, j, jrow);
    double rem = 0;
    const interval<double> a = imul(interval<double>{scale, scale}, inv_sd);
    for (std::size_t k = 0; k < D; ++k) {
      const interval<double> nn = imul(nbox[j], nbox[k]);
      const double delta = (j == k ? 1.0 : 0.0) - 1 / nd;
      const interval<double> inner{down(delta - nn.hi / nd), up(delta - nn.lo / nd)};
      rem += distance(imul(a, inner), jrow[k]) * rad[k];
    }
    if constexpr (P::layer_norm_fixed_variance) {  // planted: the affine map of the centre's sd
      for (std::size_t k = 0; k < D; ++k) jrow[k] = scale / sd_mid * ((j == k ? 1.0 : 0.0) - 1 / nd);
      rem = 0;
    }
    // The centre's value, enclosed, and its distance from the midpoint used.
    const interval<double> nc{down(dc[j].lo / (dc[j].lo >= 0 ? sdc.hi : sdc.lo)),
                              up(dc[j].hi / (dc[j].hi >= 0 ? sdc.lo : sdc.hi))};
    const interval<double> fc = imul(interval<double>{scale, scale}, nc);
    const double centre = scale * nmid[j] + shift;
    const double centre_error = up(distance(fc, scale * nmid[j]) + mag(centre) * 0x1p-51);
    const double forward = layer_norm_forward_error<T, D>(xb, d, sd, scale, shift, j);
    z_linearised<T, P>(y, i * D + j, centre, jrow, x, xi, D, up(rem + centre_error + forward));
  }
}

/// LayerNorm of every row.
template <class T, class P, std::size_t N, std::size_t D, std::size_t K>
constexpr zmat<N, D, K> step_norm(const zmat<N, D, K>& x, const layer_norm<T, D>& ln) noexcept {
  zmat<N, D, K> y;
  for (std::size_t i = 0; i < N; ++i) z_layer_norm_row<T, P>(x, y, i, ln);
  return y;
}

/// GELU's derivative over an interval (T's constants), rounded outward.
template <class T>
constexpr interval<double> gelu_slope(const interval<double>& v) noexcept {
  const double c = static_cast<double>(static_attention::detail::gelu_sqrt_2_over_pi<T>);
  const double a = static_cast<double>(static_cast<T>(0.044715));
  const interval<double> t{down(static_attention::tanh(gelu_arg<T>(v.lo)) - 0x1p-45),
                           up(static_attention::tanh(gelu_arg<T>(v.hi)) + 0x1p-45)};
  const interval<double> x2 = square(v);
  const interval<double> sech2{down(1 - max2(t.lo * t.lo, t.hi * t.hi)), up(1 - square(t).lo)};
  const interval<double> inner{down(c * (1 + 3 * a * x2.lo)), up(c * (1 + 3 * a * x2.hi))};
  const interval<double> second = imul(imul(v, sech2), inner);
  return {down(0.5 * (1 + t.lo) + 0.5 * second.lo), up(0.5 * (1 + t.hi) + 0.5 * second.hi)};
}

/// GELU of every element, by the mean-value form.
template <class T, class P, std::size_t R, std::size_t C, std::size_t K>
constexpr zmat<R, C, K> step_gelu(const zmat<R, C, K>& x) noexcept {
  zmat<R, C, K> y;
  for (std::size_t k = 0; k < R * C; ++k) {
    const double c = x.c[k], r = z_radius(x, k);
    const interval<double> v{down(c - r), up(c + r)};
    const interval<double> slope = gelu_slope<T>(v);
    const double centre_slope =
        gelu_slope<T>(interval<double>{c, c}).lo * 0.5 + gelu_slope<T>(interval<double>{c, c}).hi * 0.5;
    const double centre = gelu_exact<T>(c);
    const interval<double> range = ibp_gelu<T, sound_policy>(v);
    const double y_mag = max2(mag(range.lo), mag(range.hi));
    const double extra = distance(slope, centre_slope) * r + gelu_double_error * (mag(c) + mag(centre)) +
                         gelu_forward_error<T>(v, y_mag) + 0x1p-1000;
    const std::size_t xi[1] = {k};
    const double jrow[1] = {centre_slope};
    z_linearised<T, P>(y, k, centre, jrow, x, xi, 1, up(extra));
  }
  return y;
}

}  // namespace static_attention::verify::detail

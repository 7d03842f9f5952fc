// SPDX-License-Identifier: BSL-1.0
// The interval domain (IBP): a transfer function for every step of the modules' forward passes.
// Each takes intervals of double that hold the T values of the forward pass and returns
// intervals that hold the T results: the exact image, widened by the T rounding of the step and
// by the double rounding of the bound itself (detail/rounding.hpp).
#pragma once

#include <cstddef>

#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/nn/detail/attention_core.hpp>
#include <static_attention/nn/gelu.hpp>
#include <static_attention/verify/detail/interval_types.hpp>
#include <static_attention/verify/detail/rounding.hpp>

namespace static_attention::verify::detail {

/// Intervals of double: the working type of the bounds.
template <std::size_t R, std::size_t C>
using dbox = box<double, R, C>;

/// The largest magnitude in [lo, hi].
constexpr double mag(const interval<double>& v) noexcept { return max2(mag(v.lo), mag(v.hi)); }

/// Midpoint and a radius that covers [lo, hi] from it.
struct mid_rad {
  double m;
  double r;
};
constexpr mid_rad to_mid_rad(const interval<double>& v) noexcept {
  const double m = v.lo * 0.5 + v.hi * 0.5;
  return {m, up(max2(v.hi - m, m - v.lo))};
}

/// x W + b (bias may be null): N x I -> N x O, W and b constants of T.
template <class T, class P, std::size_t N, std::size_t I, std::size_t O>
constexpr dbox<N, O> step_affine(const dbox<N, I>& x, const matrix<T, I, O>& w, const matrix<T, 1, O>* bias) noexcept {
  dbox<N, O> y;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < O; ++j) {
      double lo = bias != nullptr ? static_cast<double>(bias->elems[j]) : 0.0;
      double hi = lo;
      double s = mag(lo);
      // Few statements a term: Clang's constant evaluator charges each, and the tiny GPT's
      // certificate in static_assert runs about 10^5 of these terms.
      for (std::size_t k = 0; k < I; ++k) {
        const double wk = static_cast<double>(w.elems[k * O + j]);
        const interval<double>& v = x.elems[i * I + k];
        const bool positive = wk >= 0;
        lo += wk * (positive ? v.lo : v.hi);
        hi += wk * (positive ? v.hi : v.lo);
        s += (positive ? wk : -wk) * (-v.lo > v.hi ? -v.lo : v.hi);  // |wk| |v| (lo <= hi)
      }
      widen<P>(lo, hi, dot_slack<T>(I + 1, s));
      y.elems[i * O + j] = {lo, hi};
    }
  return y;
}

/// Sum over k of a(k) b(k) for intervals, as midpoint-radius products, widened for n roundings.
template <class T, class P>
constexpr interval<double> ibp_dot(const mid_rad* a, std::size_t sa, const mid_rad* b, std::size_t sb,
                                   std::size_t n) noexcept {
  double m = 0, r = 0, s = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const mid_rad x = a[k * sa];
    const mid_rad y = b[k * sb];
    m += x.m * y.m;
    r += mag(x.m) * y.r + x.r * (mag(y.m) + y.r);
    s += (mag(x.m) + x.r) * (mag(y.m) + y.r);
  }
  double lo = m - r;
  double hi = m + r;
  widen<P>(lo, hi, dot_slack<T>(n + 2, s + s));
  return {lo, hi};
}

/// Midpoints and radii of every interval of a box.
template <std::size_t R, std::size_t C>
struct mid_rad_box {
  mid_rad e[R * C]{};
};
template <std::size_t R, std::size_t C>
constexpr mid_rad_box<R, C> to_mid_rad(const dbox<R, C>& x) noexcept {
  mid_rad_box<R, C> out;
  for (std::size_t k = 0; k < R * C; ++k) out.e[k] = to_mid_rad(x.elems[k]);
  return out;
}

/// Columns [offset, offset + Count) of x.
template <std::size_t Count, std::size_t N, std::size_t C>
constexpr dbox<N, Count> step_slice(const dbox<N, C>& x, std::size_t offset) noexcept {
  dbox<N, Count> y;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < Count; ++j) y.elems[i * Count + j] = x.elems[i * C + offset + j];
  return y;
}
/// Writes block into columns [offset, offset + Count) of x.
template <std::size_t Count, std::size_t N, std::size_t C>
constexpr void step_assign(dbox<N, C>& x, const dbox<N, Count>& block, std::size_t offset) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < Count; ++j) x.elems[i * C + offset + j] = block.elems[i * Count + j];
}

/// The number of scores row i of a causal (or not) N x N attention computes.
template <bool Causal, class P>
constexpr std::size_t row_length(std::size_t i, std::size_t n) noexcept {
  if constexpr (Causal && !P::softmax_ignores_mask) return i + 1 < n ? i + 1 : n;
  return n;
}

/// q k^T / sqrt(d_k), only j <= i when Causal (the masked scores are never computed; they stay
/// [0, 0] and the softmax skips them).
template <class T, class P, bool Causal, std::size_t N, std::size_t Dk>
constexpr dbox<N, N> step_scores(const dbox<N, Dk>& q, const dbox<N, Dk>& k) noexcept {
  const auto qm = to_mid_rad(q);
  const auto km = to_mid_rad(k);
  const double scale = static_cast<double>(static_attention::detail::sqrt_dk<T, Dk>());
  dbox<N, N> s;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < row_length<Causal, P>(i, N); ++j) {
      const interval<double> d = ibp_dot<T, P>(qm.e + i * Dk, 1, km.e + j * Dk, 1, Dk);
      double lo = d.lo / scale;
      double hi = d.hi / scale;
      widen<P>(lo, hi, unit<T> * 1.01 * mag(interval<double>{lo, hi}) + tiny<T>);
      s.elems[i * N + j] = {lo, hi};
    }
  return s;
}

/// exp(x) rounded up / down (the library's exp is within 1 ulp).
constexpr double exp_up(double x) noexcept { return up(up(static_attention::exp(up(x)))); }
constexpr double exp_down(double x) noexcept { return down(down(static_attention::exp(down(x)))); }

/// One softmax row of len intervals, written to y: y_j = 1 / sum_k exp(s_k - s_j), bounded by
/// the extreme scores, then widened by the T rounding of the library's softmax (exp within
/// 1 ulp of a rounded difference, a sum of len terms, a division).
template <class T, class P>
constexpr void ibp_softmax_row(const interval<double>* s, interval<double>* y, std::size_t len) noexcept {
  double top = -inf, bottom = inf;
  for (std::size_t k = 0; k < len; ++k) {
    top = max2(top, s[k].hi);
    bottom = min2(bottom, s[k].lo);
  }
  const double rel = unit<T> * (2 * (top - bottom + 2) + static_cast<double>(len) + 3) * 1.01;
  const double abs = tiny<T> * static_cast<double>(len + 3);
  for (std::size_t j = 0; j < len; ++j) {
    double above = 1, below = 1;  // 1 + sum over k != j of exp(s_k - s_j), largest and smallest
    for (std::size_t k = 0; k < len; ++k) {
      if (k == j) continue;
      above = up(above + exp_up(s[k].hi - s[j].lo));
      below = down(below + exp_down(s[k].lo - s[j].hi));
    }
    double lo = down(1 / above);
    double hi = up(1 / below);
    widen<P>(lo, hi, rel * hi + abs);
    y[j] = {max2(lo, 0.0), min2(hi, 1.0)};
  }
}

/// The softmax of every row (only the first i + 1 scores of row i when Causal; the rest are
/// exactly 0).
template <class T, class P, bool Causal, std::size_t R, std::size_t C>
constexpr dbox<R, C> step_softmax(const dbox<R, C>& s) noexcept {
  dbox<R, C> y;
  for (std::size_t i = 0; i < R; ++i)
    ibp_softmax_row<T, P>(s.elems + i * C, y.elems + i * C, row_length<Causal, P>(i, C));
  return y;
}

/// weights . values, row i summing only j <= i when Causal (the masked keys are skipped).
template <class T, class P, bool Causal, std::size_t N, std::size_t Dv>
constexpr dbox<N, Dv> step_weighted_values(const dbox<N, N>& w, const dbox<N, Dv>& v) noexcept {
  const auto wm = to_mid_rad(w);
  const auto vm = to_mid_rad(v);
  dbox<N, Dv> y;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t c = 0; c < Dv; ++c)
      y.elems[i * Dv + c] = ibp_dot<T, P>(wm.e + i * N, 1, vm.e + c, Dv, row_length<Causal, P>(i, N));
  return y;
}

/// a + b, element-wise (the residual sum).
template <class T, class P, std::size_t R, std::size_t C>
constexpr dbox<R, C> step_add(const dbox<R, C>& a, const dbox<R, C>& b) noexcept {
  dbox<R, C> y;
  for (std::size_t k = 0; k < R * C; ++k) {
    double lo = a.elems[k].lo + b.elems[k].lo;
    double hi = a.elems[k].hi + b.elems[k].hi;
    widen<P>(lo, hi, unit<T> * 1.01 * mag(interval<double>{lo, hi}));
    y.elems[k] = {lo, hi};
  }
  return y;
}

}  // namespace static_attention::verify::detail

// SPDX-License-Identifier: BSL-1.0
// The relational domain: zonotopes (affine forms, as DeepT) with K shared noise symbols in the
// type. Element x = c + sum_s g_s eps_s + e beta_x, every eps_s in [-1, 1] shared across the
// whole network (so correlations between inputs survive) and beta_x in [-1, 1] private to x
// (linearisation and rounding errors). Linear steps are exact on the symbols; nonlinear ones
// use the mean-value form f(x) in f(c) + J(c)(x - c) + (J(box) - J(c))(x - c), whose remainder
// is second order in the radius; rounding of both the bound and the T forward pass goes to e.
#pragma once

#include <cstddef>

#include <static_attention/core/matrix.hpp>
#include <static_attention/verify/detail/ibp_nonlinear.hpp>
#include <static_attention/verify/detail/ibp_ops.hpp>

namespace static_attention::verify::detail {

/// R x C affine forms over K noise symbols.
template <std::size_t R, std::size_t C, std::size_t K>
struct zmat {
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
  /// Centres.
  double c[R * C]{};
  /// Coefficients of the shared symbols, K per element.
  double g[R * C * K]{};
  /// Radii of the private error terms (>= 0).
  double e[R * C]{};
};

/// sum_s |g_s| of element x (rounded up).
template <std::size_t K>
constexpr double g_norm(const double* g) noexcept {
  double s = 0;
  for (std::size_t k = 0; k < K; ++k) s += mag(g[k]);
  return up(s * (1 + gamma(0x1p-53, K + 1)));
}

/// The box: element k gets symbol k while k < K (its radius as coefficient), the rest of the
/// radius goes to its error term.
template <std::size_t K, std::size_t R, std::size_t C>
constexpr zmat<R, C, K> z_from_box(const dbox<R, C>& b) noexcept {
  zmat<R, C, K> z;
  for (std::size_t k = 0; k < R * C; ++k) {
    const mid_rad v = to_mid_rad(b.elems[k]);
    z.c[k] = v.m;
    if (k < K)
      z.g[k * K + k] = v.r;
    else
      z.e[k] = v.r;
  }
  return z;
}

/// The radius of element k (its symbols and its error term).
template <std::size_t R, std::size_t C, std::size_t K>
constexpr double z_radius(const zmat<R, C, K>& z, std::size_t k) noexcept {
  return up(g_norm<K>(z.g + k * K) + z.e[k]);
}

/// Each element's interval.
template <class P, std::size_t R, std::size_t C, std::size_t K>
constexpr dbox<R, C> z_concretize(const zmat<R, C, K>& z) noexcept {
  dbox<R, C> b;
  for (std::size_t k = 0; k < R * C; ++k) {
    double lo = z.c[k], hi = z.c[k];
    widen<P>(lo, hi, z_radius(z, k));
    b.elems[k] = {lo, hi};
  }
  return b;
}

/// x W + b for constant W and b (bias may be null).
template <class T, class P, std::size_t N, std::size_t I, std::size_t O, std::size_t K>
constexpr zmat<N, O, K> step_affine(const zmat<N, I, K>& x, const matrix<T, I, O>& w,
                                    const matrix<T, 1, O>* bias) noexcept {
  zmat<N, O, K> y;
  double rad[N * I]{};
  for (std::size_t k = 0; k < N * I; ++k) rad[k] = z_radius(x, k);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < O; ++j) {
      const std::size_t o = i * O + j;
      double c = bias != nullptr ? static_cast<double>(bias->elems[j]) : 0.0;
      double e = 0, s = mag(c);
      double* g = y.g + o * K;
      for (std::size_t k = 0; k < I; ++k) {
        const double wk = static_cast<double>(w.elems[k * O + j]);
        const std::size_t xi = i * I + k;
        c += wk * x.c[xi];
        e += mag(wk) * x.e[xi];
        s += mag(wk) * (mag(x.c[xi]) + rad[xi]);
        const double* gx = x.g + xi * K;
        for (std::size_t t = 0; t < K; ++t) g[t] += wk * gx[t];
      }
      y.c[o] = c;
      y.e[o] = P::round_inward ? e : up(e + dot_slack<T>(I + 1, s + s));
    }
  return y;
}

/// sum over n of a(k) b(k) for two affine forms (rows a_i, b_j with strides): the bilinear
/// product's linear part on the symbols, its quadratic part (<= radius(a) radius(b)) to e.
template <class T, class P, std::size_t Ra, std::size_t Ca, std::size_t Rb, std::size_t Cb, std::size_t K>
constexpr void z_dot(const zmat<Ra, Ca, K>& a, std::size_t a0, std::size_t sa, const zmat<Rb, Cb, K>& b, std::size_t b0,
                     std::size_t sb, std::size_t n, double& c, double* g, double& e) noexcept {
  double s = 0;
  c = 0;
  e = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t ai = a0 + k * sa, bi = b0 + k * sb;
    const double ca = a.c[ai], cb = b.c[bi];
    const double ra = z_radius(a, ai), rb = z_radius(b, bi);
    c += ca * cb;
    e += mag(ca) * b.e[bi] + mag(cb) * a.e[ai] + ra * rb;
    s += (mag(ca) + ra) * (mag(cb) + rb);
    const double* ga = a.g + ai * K;
    const double* gb = b.g + bi * K;
    for (std::size_t t = 0; t < K; ++t) g[t] += ca * gb[t] + cb * ga[t];
  }
  e = P::round_inward ? e : up(e + dot_slack<T>(n + 2, 2 * s));
}

// Row i's Count entries go from src column from_col + j (src has SrcC columns) to dst column
// to_col + j (dst has DstC columns): centre, error and every generator.
template <std::size_t Count, std::size_t N, std::size_t SrcC, std::size_t DstC, std::size_t K>
constexpr void z_copy_columns(const zmat<N, SrcC, K>& src, std::size_t from_col, zmat<N, DstC, K>& dst,
                              std::size_t to_col) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < Count; ++j) {
      const std::size_t from = i * SrcC + from_col + j, to = i * DstC + to_col + j;
      dst.c[to] = src.c[from];
      dst.e[to] = src.e[from];
      for (std::size_t t = 0; t < K; ++t) dst.g[to * K + t] = src.g[from * K + t];
    }
}
/// Columns [offset, offset + Count).
template <std::size_t Count, std::size_t N, std::size_t C, std::size_t K>
constexpr zmat<N, Count, K> step_slice(const zmat<N, C, K>& x, std::size_t offset) noexcept {
  zmat<N, Count, K> y;
  z_copy_columns<Count>(x, offset, y, 0);
  return y;
}
/// Writes block into columns [offset, offset + Count).
template <std::size_t Count, std::size_t N, std::size_t C, std::size_t K>
constexpr void step_assign(zmat<N, C, K>& x, const zmat<N, Count, K>& block, std::size_t offset) noexcept {
  z_copy_columns<Count>(block, 0, x, offset);
}

/// q k^T / sqrt(d_k), only j <= i when Causal.
template <class T, class P, bool Causal, std::size_t N, std::size_t Dk, std::size_t K>
constexpr zmat<N, N, K> step_scores(const zmat<N, Dk, K>& q, const zmat<N, Dk, K>& k) noexcept {
  const double scale = static_cast<double>(static_attention::detail::sqrt_dk<T, Dk>());
  zmat<N, N, K> s;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < row_length<Causal, P>(i, N); ++j) {
      const std::size_t o = i * N + j;
      double c = 0, e = 0;
      double* g = s.g + o * K;
      z_dot<T, P>(q, i * Dk, 1, k, j * Dk, 1, Dk, c, g, e);
      for (std::size_t t = 0; t < K; ++t) g[t] /= scale;
      s.c[o] = c / scale;
      const double r = (mag(c) + g_norm<K>(g) * scale + e) / scale;
      s.e[o] = P::round_inward ? e / scale : up(e / scale + r * (1.01 * unit<T> + 0x1p-51) + tiny<T>);
    }
  return s;
}

/// weights . values, row i summing only j <= i when Causal (masked keys skipped).
template <class T, class P, bool Causal, std::size_t N, std::size_t Dv, std::size_t K>
constexpr zmat<N, Dv, K> step_weighted_values(const zmat<N, N, K>& w, const zmat<N, Dv, K>& v) noexcept {
  zmat<N, Dv, K> y;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t col = 0; col < Dv; ++col) {
      const std::size_t o = i * Dv + col;
      z_dot<T, P>(w, i * N, 1, v, col, Dv, row_length<Causal, P>(i, N), y.c[o], y.g + o * K, y.e[o]);
    }
  return y;
}

/// DeepZ's fresh symbols: each element's private error term becomes a shared symbol of its own,
/// after the symbols in use, while the budget K lasts (the rest stay private). Exact (the same
/// set), and from then on those errors cancel across elements like the input's symbols do.
template <std::size_t R, std::size_t C, std::size_t K>
constexpr void z_share_errors(zmat<R, C, K>& x) noexcept {
  std::size_t next = 0;
  for (std::size_t k = 0; k < R * C; ++k)
    for (std::size_t t = K; t > next; --t)
      if (x.g[k * K + t - 1] != 0) {
        next = t;
        break;
      }
  for (std::size_t k = 0; k < R * C && next < K; ++k)
    if (x.e[k] > 0) {
      x.g[k * K + next++] = x.e[k];
      x.e[k] = 0;
    }
}

/// a + b.
template <class T, class P, std::size_t R, std::size_t C, std::size_t K>
constexpr zmat<R, C, K> step_add(const zmat<R, C, K>& a, const zmat<R, C, K>& b) noexcept {
  zmat<R, C, K> y;
  for (std::size_t k = 0; k < R * C; ++k) {
    y.c[k] = a.c[k] + b.c[k];
    for (std::size_t t = 0; t < K; ++t) y.g[k * K + t] = a.g[k * K + t] + b.g[k * K + t];
    const double m = mag(y.c[k]) + z_radius(a, k) + z_radius(b, k);
    const double e = a.e[k] + b.e[k];
    y.e[k] = P::round_inward ? e : up(e + m * (1.01 * unit<T> + 0x1p-51));
  }
  return y;
}

}  // namespace static_attention::verify::detail

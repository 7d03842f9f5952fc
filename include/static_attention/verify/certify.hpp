// SPDX-License-Identifier: BSL-1.0
// verify::certify_next_token and verify::certified_radius: robustness of greedy decoding.
#pragma once

#include <array>
#include <cstddef>

#include <static_attention/nn/gpt.hpp>
#include <static_attention/verify/bound.hpp>

namespace static_attention::verify {

namespace detail {
/// A lower bound of logit[best] - logit[j] over the last row h (1 x D) of final-norm outputs,
/// from the difference of out_head's columns (exact in double), widened by the T rounding of
/// both logits. ibp: intervals of h; zonotope: the affine forms of h.
template <class T, class P, std::size_t D, std::size_t V>
constexpr double margin_lower(const dbox<1, D>& h, const matrix<T, D, V>& w, std::size_t best, std::size_t j) noexcept {
  double lo = 0, s = 0;
  for (std::size_t k = 0; k < D; ++k) {
    const double dw = static_cast<double>(w.elems[k * V + best]) - static_cast<double>(w.elems[k * V + j]);
    lo += dw >= 0 ? dw * h.elems[k].lo : dw * h.elems[k].hi;
    s += (mag(static_cast<double>(w.elems[k * V + best])) + mag(static_cast<double>(w.elems[k * V + j]))) *
         mag(h.elems[k]);
  }
  return down(lo - dot_slack<T>(D + 2, s));
}
template <class T, class P, std::size_t D, std::size_t V, std::size_t K>
constexpr double margin_lower(const zmat<1, D, K>& h, const matrix<T, D, V>& w, std::size_t best,
                              std::size_t j) noexcept {
  double c = 0, e = 0, s = 0, g[K]{};
  for (std::size_t k = 0; k < D; ++k) {
    const double dw = static_cast<double>(w.elems[k * V + best]) - static_cast<double>(w.elems[k * V + j]);
    c += dw * h.c[k];
    e += mag(dw) * h.e[k];
    s += (mag(static_cast<double>(w.elems[k * V + best])) + mag(static_cast<double>(w.elems[k * V + j]))) *
         (mag(h.c[k]) + z_radius(h, k));
    for (std::size_t t = 0; t < K; ++t) g[t] += dw * h.g[k * K + t];
  }
  return down(c - g_norm<K>(g) - e - dot_slack<T>(D + 2, 2 * s));
}

/// The last row of a domain's N x D value.
template <std::size_t N, std::size_t D>
constexpr dbox<1, D> last_row(const dbox<N, D>& x) noexcept {
  dbox<1, D> r;
  for (std::size_t j = 0; j < D; ++j) r.elems[j] = x.elems[(N - 1) * D + j];
  return r;
}
template <std::size_t N, std::size_t D, std::size_t K>
constexpr zmat<1, D, K> last_row(const zmat<N, D, K>& x) noexcept {
  zmat<1, D, K> r;
  for (std::size_t j = 0; j < D; ++j) {
    r.c[j] = x.c[(N - 1) * D + j];
    r.e[j] = x.e[(N - 1) * D + j];
    for (std::size_t t = 0; t < K; ++t) r.g[j * K + t] = x.g[((N - 1) * D + j) * K + t];
  }
  return r;
}

/// True if domain D proves every margin of the last token positive over the eps-ball.
template <class D, class P, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr bool certify_with(const gpt_model<T, Cfg>& model, const std::array<I, N>& ids, T eps,
                            std::size_t best) noexcept {
  using S = steps_for<D, N, Cfg.emb_dim>;
  static_attention::detail::check_stack<bound_stack_bytes<S, N, 4 * Cfg.emb_dim>,
                                        instead_fewer_symbols_or_rows_or_a_larger_stack_limit>();
  const auto h = S::template norm<T>(last_row(gpt_hidden<S>(model, ids, eps)), model.final_norm);
  for (std::size_t j = 0; j < Cfg.vocab_size; ++j)
    if (j != best && !(margin_lower<T, P>(h, model.out_head, best, j) > 0)) return false;
  return true;
}
}  // namespace detail

/// True only if, for every perturbation of the input embeddings (token plus position) of ids
/// with l-infinity norm <= eps, the greedy next token (argmax of the last row of logits, the
/// first on ties) stays model(ids)'s. Tries intervals first (cheap: what fits in a
/// static_assert), then domain D (zonotopes by default) on the margins logit[best] - logit[j].
template <domain D = relational, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr bool certify_next_token(const gpt_model<T, Cfg>& model, const std::array<I, N>& ids, T eps) noexcept {
  const auto logits = model(ids);
  const std::size_t best = static_attention::detail::argmax(row(logits, N - 1));
  if (detail::certify_with<ibp, sound_policy>(model, ids, eps, best)) return true;
  return detail::certify_with<D, sound_policy>(model, ids, eps, best);
}

/// The largest eps (to a relative 2^-iterations) that certify_next_token<D> proves, found by
/// bisection between 0 and upper (0 if none).
template <domain D = relational, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr T certified_radius(const gpt_model<T, Cfg>& model, const std::array<I, N>& ids, T upper = T{1},
                             int iterations = 24) noexcept {
  T lo{0}, hi = upper;
  // Find a certified eps below upper first (halving), then bisect between it and twice it.
  while (hi > T{1e-30f} && !certify_next_token<D>(model, ids, hi)) hi /= 2;
  if (!(hi > T{1e-30f})) return T{0};
  lo = hi;
  hi = lo * 2 < upper ? lo * 2 : upper;
  for (int k = 0; k < iterations; ++k) {
    const T mid = lo + (hi - lo) / 2;
    if (certify_next_token<D>(model, ids, mid))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace static_attention::verify

// SPDX-License-Identifier: BSL-1.0
// The abstract domains verify::bound propagates through a module: verify::ibp (intervals) and
// verify::zonotope<K> (affine forms over K shared noise symbols, the relational default).
#pragma once

#include <cstddef>

#include <static_attention/verify/detail/ibp_nonlinear.hpp>
#include <static_attention/verify/detail/ibp_ops.hpp>
#include <static_attention/verify/detail/rounding.hpp>
#include <static_attention/verify/detail/zonotope_nonlinear.hpp>
#include <static_attention/verify/detail/zonotope_ops.hpp>

namespace static_attention::verify {

/// The policy of the sound transfer functions (a test may plant a fault through another one).
using detail::sound_policy;

namespace detail {
/// What the two domains do differently: their values (mat), how a box enters (from_box) and
/// leaves (concretize), and the fresh symbols of the residual sums (share_errors).
struct ibp_values {
  template <std::size_t R, std::size_t C>
  using mat = dbox<R, C>;
  template <std::size_t R, std::size_t C>
  static constexpr mat<R, C> from_box(const dbox<R, C>& b) noexcept {
    return b;
  }
  template <std::size_t R, std::size_t C>
  static constexpr dbox<R, C> concretize(const mat<R, C>& x) noexcept {
    return x;
  }
  template <std::size_t R, std::size_t C>
  static constexpr void share_errors(mat<R, C>&) noexcept {}
};
template <std::size_t K, class P>
struct zonotope_values {
  template <std::size_t R, std::size_t C>
  using mat = zmat<R, C, K>;
  template <std::size_t R, std::size_t C>
  static constexpr mat<R, C> from_box(const dbox<R, C>& b) noexcept {
    return z_from_box<K>(b);
  }
  template <std::size_t R, std::size_t C>
  static constexpr dbox<R, C> concretize(const mat<R, C>& x) noexcept {
    return z_concretize<P>(x);
  }
  template <std::size_t R, std::size_t C>
  static constexpr void share_errors(mat<R, C>& x) noexcept {
    z_share_errors(x);
  }
};

/// A domain's steps under policy P: Values' own, and the transfer functions, each found by
/// overloading on the value type (ibp_ops.hpp and ibp_nonlinear.hpp for dbox,
/// zonotope_ops.hpp and zonotope_nonlinear.hpp for zmat).
template <class Values, class P>
struct domain_steps : Values {
  template <std::size_t R, std::size_t C>
  using mat = typename Values::template mat<R, C>;
  template <class T, std::size_t N, std::size_t I, std::size_t O>
  static constexpr mat<N, O> affine(const mat<N, I>& x, const matrix<T, I, O>& w, const matrix<T, 1, O>* b) noexcept {
    return step_affine<T, P>(x, w, b);
  }
  template <class T, bool Causal, std::size_t N, std::size_t Dk>
  static constexpr mat<N, N> scores(const mat<N, Dk>& q, const mat<N, Dk>& k) noexcept {
    return step_scores<T, P, Causal>(q, k);
  }
  template <class T, bool Causal, std::size_t N>
  static constexpr mat<N, N> softmax(const mat<N, N>& s) noexcept {
    return step_softmax<T, P, Causal>(s);
  }
  template <class T, bool Causal, std::size_t N, std::size_t Dv>
  static constexpr mat<N, Dv> weighted_values(const mat<N, N>& w, const mat<N, Dv>& v) noexcept {
    return step_weighted_values<T, P, Causal>(w, v);
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr mat<R, C> add(const mat<R, C>& a, const mat<R, C>& b) noexcept {
    return step_add<T, P>(a, b);
  }
  template <class T, std::size_t N, std::size_t D>
  static constexpr mat<N, D> norm(const mat<N, D>& x, const layer_norm<T, D>& ln) noexcept {
    return step_norm<T, P>(x, ln);
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr mat<R, C> gelu(const mat<R, C>& x) noexcept {
    return step_gelu<T, P>(x);
  }
  template <std::size_t Count, std::size_t N, std::size_t C>
  static constexpr mat<N, Count> slice(const mat<N, C>& x, std::size_t offset) noexcept {
    return step_slice<Count>(x, offset);
  }
  template <std::size_t Count, std::size_t N, std::size_t C>
  static constexpr void assign(mat<N, C>& x, const mat<N, Count>& block, std::size_t offset) noexcept {
    step_assign<Count>(x, block, offset);
  }
};

/// The interval domain's steps, under policy P.
template <class P>
using ibp_steps = domain_steps<ibp_values, P>;
/// The zonotope domain's steps, K noise symbols, under policy P.
template <std::size_t K, class P>
using zonotope_steps = domain_steps<zonotope_values<K, P>, P>;
}  // namespace detail

/// Interval bound propagation (IBP) under policy P: the baseline domain.
template <class P = sound_policy>
struct ibp_with {
  /// The steps for a set of Inputs elements.
  template <std::size_t Inputs>
  using steps = detail::ibp_steps<P>;
};
/// Interval bound propagation: `verify::bound<verify::ibp>(module, set)`.
using ibp = ibp_with<>;

/// Zonotopes over K shared noise symbols (K = 0: one per element of the set, so the input
/// ball is exact; with fewer, the remaining elements' radii become private error terms), plus
/// Fresh symbols for the errors of the steps (DeepZ): at every residual sum (transformer_block's
/// two), each element's private error term becomes a symbol of its own while they last. Under
/// policy P. zonotope<> is the relational domain, and verify::bound's default.
template <std::size_t K = 0, class P = sound_policy, std::size_t Fresh = 0>
struct zonotope {
  /// The steps for a set of Inputs elements.
  template <std::size_t Inputs>
  using steps = detail::zonotope_steps<(K == 0 ? Inputs : K) + Fresh, P>;
};
/// The default relational domain.
using relational = zonotope<>;

/// A domain tag: ibp_with<P> or zonotope<K, P>.
template <class D>
concept domain = requires {
  typename D::template steps<1>;
};

}  // namespace static_attention::verify

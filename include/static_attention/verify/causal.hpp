// SPDX-License-Identifier: BSL-1.0
// verify::causal: a proof that output row i of a module depends on no input row after i.
//
// A dependency analysis over the same step-for-step forward pass as verify::bound
// (detail/propagate.hpp): each value carries the set of input rows it depends on (a bit mask),
// whatever their values, infinities and NaN included, since 0 * inf is NaN: a product with a
// zero weight still depends on its operand. What it models of the attention engine: a causal
// row i computes scores j <= i only, its softmax reads only those (the masked weights are the
// constant 0), and weights . values sums only keys j <= i (masked keys skipped).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <boost/hana/for_each.hpp>

#include <static_attention/nn/gpt.hpp>
#include <static_attention/verify/detail/propagate.hpp>

namespace static_attention::verify {

namespace detail {
/// R x C dependency masks: bit r set if the value may depend on input row r.
template <std::size_t R, std::size_t C>
struct dep {
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
  std::uint64_t m[R * C]{};
};

/// The library's attention masks: key j is visible to query i if j <= i (Causal) or always.
template <bool Causal>
struct attention_mask {
  /// True if query i sees key j.
  constexpr bool operator()(std::size_t i, std::size_t j) const noexcept { return !Causal || j <= i; }
};

/// The dependency domain's steps (the same interface as ibp_steps), with the attention steps
/// also for any mask (masked_*), for modules that describe their own pass (see run below).
struct dependency_steps {
  template <std::size_t R, std::size_t C>
  using mat = dep<R, C>;
  template <class T, std::size_t N, std::size_t I, std::size_t O>
  static constexpr dep<N, O> affine(const dep<N, I>& x, const matrix<T, I, O>&, const matrix<T, 1, O>*) noexcept {
    dep<N, O> y;
    for (std::size_t i = 0; i < N; ++i) {
      std::uint64_t row = 0;
      for (std::size_t k = 0; k < I; ++k) row |= x.m[i * I + k];
      for (std::size_t j = 0; j < O; ++j) y.m[i * O + j] = row;
    }
    return y;
  }
  /// Scores of query i against key j for every (i, j) that mask(i, j) lets through.
  template <std::size_t N, std::size_t Dk, class Mask>
  static constexpr dep<N, N> masked_scores(const dep<N, Dk>& q, const dep<N, Dk>& k, Mask mask) noexcept {
    dep<N, N> s;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j)
        if (mask(i, j))
          for (std::size_t c = 0; c < Dk; ++c) s.m[i * N + j] |= q.m[i * Dk + c] | k.m[j * Dk + c];
    return s;
  }
  /// Softmax over the positions mask lets through (the others: the constant 0).
  template <std::size_t N, class Mask>
  static constexpr dep<N, N> masked_softmax(const dep<N, N>& s, Mask mask) noexcept {
    dep<N, N> y;
    for (std::size_t i = 0; i < N; ++i) {
      std::uint64_t row = 0;
      for (std::size_t j = 0; j < N; ++j)
        if (mask(i, j)) row |= s.m[i * N + j];
      for (std::size_t j = 0; j < N; ++j)
        if (mask(i, j)) y.m[i * N + j] = row;
    }
    return y;
  }
  /// weights . values, row i summing the keys mask lets through.
  template <std::size_t N, std::size_t Dv, class Mask>
  static constexpr dep<N, Dv> masked_weighted_values(const dep<N, N>& w, const dep<N, Dv>& v, Mask mask) noexcept {
    dep<N, Dv> y;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t c = 0; c < Dv; ++c)
        for (std::size_t j = 0; j < N; ++j)
          if (mask(i, j)) y.m[i * Dv + c] |= w.m[i * N + j] | v.m[j * Dv + c];
    return y;
  }
  template <class T, bool Causal, std::size_t N, std::size_t Dk>
  static constexpr dep<N, N> scores(const dep<N, Dk>& q, const dep<N, Dk>& k) noexcept {
    return masked_scores(q, k, attention_mask<Causal>{});
  }
  template <class T, bool Causal, std::size_t N>
  static constexpr dep<N, N> softmax(const dep<N, N>& s) noexcept {
    return masked_softmax(s, attention_mask<Causal>{});
  }
  template <class T, bool Causal, std::size_t N, std::size_t Dv>
  static constexpr dep<N, Dv> weighted_values(const dep<N, N>& w, const dep<N, Dv>& v) noexcept {
    return masked_weighted_values(w, v, attention_mask<Causal>{});
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr dep<R, C> add(const dep<R, C>& a, const dep<R, C>& b) noexcept {
    dep<R, C> y;
    for (std::size_t k = 0; k < R * C; ++k) y.m[k] = a.m[k] | b.m[k];
    return y;
  }
  template <class T, std::size_t N, std::size_t D>
  static constexpr dep<N, D> norm(const dep<N, D>& x, const layer_norm<T, D>&) noexcept {
    return affine<T>(x, matrix<T, D, D>{}, static_cast<const matrix<T, 1, D>*>(nullptr));
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr dep<R, C> gelu(const dep<R, C>& x) noexcept {
    return x;
  }
  template <std::size_t Count, std::size_t N, std::size_t C>
  static constexpr dep<N, Count> slice(const dep<N, C>& x, std::size_t offset) noexcept {
    dep<N, Count> y;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < Count; ++j) y.m[i * Count + j] = x.m[i * C + offset + j];
    return y;
  }
  template <std::size_t Count, std::size_t N, std::size_t C>
  static constexpr void assign(dep<N, C>& x, const dep<N, Count>& block, std::size_t offset) noexcept {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < Count; ++j) x.m[i * C + offset + j] = block.m[i * Count + j];
  }
  template <std::size_t R, std::size_t C>
  static constexpr void share_errors(dep<R, C>&) noexcept {}
};

/// A module outside nn/ that describes its forward pass to the analysis, as a member
/// `template <class S, class X> constexpr auto dependencies(const X&) const` over S's steps.
template <class M, class X>
concept describes_dependencies = requires(const M& m, const X& x) {
  m.template dependencies<dependency_steps>(x);
};

/// The analysis of one module: its own description, else propagate.hpp's mirror of nn/.
template <class M, class X>
constexpr auto run_dependencies(const M& module, const X& x) noexcept {
  if constexpr (describes_dependencies<M, X>)
    return module.template dependencies<dependency_steps>(x);
  else
    return run<dependency_steps>(module, x);
}

/// Row i of the input depends on input row i only.
template <std::size_t N, std::size_t D>
constexpr dep<N, D> own_rows() noexcept {
  dep<N, D> x;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < D; ++j) x.m[i * D + j] = std::uint64_t{1} << i;
  return x;
}
/// True if no element of row i depends on a row after i.
template <std::size_t N, std::size_t D>
constexpr bool rows_causal(const dep<N, D>& y) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < D; ++j)
      if ((y.m[i * D + j] >> i) > 1) return false;
  return true;
}
/// The context length of a module to check: its max_tokens, else 8; at most 64.
template <class M>
constexpr std::size_t tokens_to_check() noexcept {
  if constexpr (requires { M::max_tokens; }) {
    return M::max_tokens < 64 ? M::max_tokens : 64;
  } else {
    return 8;
  }
}
}  // namespace detail

/// True if output row i of module depends on no input row after i, whatever their values
/// (infinities and NaN included), for N rows (default: its context length, at most 64, or 8).
/// A proof by dependency analysis of the code's steps, not a sampled test; false for
/// self_attention. Takes the nn/ modules, and any module with a member
/// `template <class S, class X> constexpr auto dependencies(const X&) const` that describes its
/// pass over S's steps (S::affine, S::masked_scores(q, k, mask), S::masked_softmax, ...).
template <std::size_t N = 0, class Module>
constexpr bool causal(const Module& module) noexcept {
  constexpr std::size_t n = N == 0 ? detail::tokens_to_check<Module>() : N;
  static_assert(n >= 1 && n <= 64, "verify::causal<N>(module) requires 1 <= N <= 64");
  return detail::rows_causal(detail::run_dependencies(module, detail::own_rows<n, Module::in_features>()));
}

/// The same for a GPT: the logits' row i depends on no id or position after i.
template <std::size_t N = 0, class T, gpt_config Cfg>
constexpr bool causal(const gpt_model<T, Cfg>& model) noexcept {
  constexpr std::size_t n = N == 0 ? (Cfg.context_length < 64 ? Cfg.context_length : 64) : N;
  using S = detail::dependency_steps;
  auto x = detail::own_rows<n, Cfg.emb_dim>();
  boost::hana::for_each(model.trf_blocks, detail::run_block<S, decltype(x)>{&x});
  const auto logits = S::affine<T>(S::norm<T>(x, model.final_norm), model.out_head,
                                   static_cast<const matrix<T, 1, Cfg.vocab_size>*>(nullptr));
  return detail::rows_causal(logits);
}

}  // namespace static_attention::verify

// SPDX-License-Identifier: BSL-1.0
// Each nn module's forward pass, step for step, over an abstract domain S (ibp_steps,
// zonotope_steps, dependency_steps): the one place where the verifier mirrors the modules.
#pragma once

#include <cstddef>

#include <boost/hana/for_each.hpp>

#include <static_attention/core/matrix.hpp>
#include <static_attention/nn/causal_attention.hpp>
#include <static_attention/nn/feed_forward.hpp>
#include <static_attention/nn/layer_norm.hpp>
#include <static_attention/nn/linear_layer.hpp>
#include <static_attention/nn/multi_head_attention.hpp>
#include <static_attention/nn/self_attention.hpp>
#include <static_attention/nn/transformer_block.hpp>

namespace static_attention::verify::detail {

/// The rule of every module's input: it has in_features columns.
template <std::size_t Cols, std::size_t InFeatures>
constexpr void check_set_features() noexcept {
  static_assert(Cols == InFeatures,
                "verify::bound(module, set) requires cols(set) == module's in_features (input_features_match)");
}

/// No bias row.
template <class T, std::size_t O>
inline constexpr const matrix<T, 1, O>* no_bias = nullptr;

/// linear_layer: x W + b.
template <class S, class X, class T, std::size_t I, std::size_t O>
constexpr auto run(const linear_layer<T, I, O>& m, const X& x) noexcept {
  check_set_features<X::cols, I>();
  return S::template affine<T>(x, m.weight, &m.bias);
}

/// layer_norm.
template <class S, class X, class T, std::size_t D>
constexpr auto run(const layer_norm<T, D>& m, const X& x) noexcept {
  check_set_features<X::cols, D>();
  return S::template norm<T>(x, m);
}

/// feed_forward: expand, GELU, project.
template <class S, class X, class T, std::size_t D, std::size_t H>
constexpr auto run(const feed_forward<T, D, H>& m, const X& x) noexcept {
  check_set_features<X::cols, D>();
  return S::template affine<T>(S::template gelu<T>(S::template affine<T>(x, m.expand.weight, &m.expand.bias)),
                               m.project.weight, &m.project.bias);
}

/// One head: softmax(q k^T / sqrt(d_k)) v, masked when Causal.
template <class S, bool Causal, class T, class Q, class V>
constexpr V attend(const Q& q, const Q& k, const V& v) noexcept {
  return S::template weighted_values<T, Causal>(S::template softmax<T, Causal>(S::template scores<T, Causal>(q, k)), v);
}

/// causal_attention.
template <class S, class X, class T, std::size_t I, std::size_t O, std::size_t Ctx>
constexpr auto run(const causal_attention<T, I, O, Ctx>& m, const X& x) noexcept {
  check_set_features<X::cols, I>();
  static_assert(tokens_within_context_length<X::rows, Ctx>,
                "verify::bound(module, set) requires rows(set) <= context_length");
  const auto q = S::template affine<T>(x, m.W_query, no_bias<T, O>);
  const auto k = S::template affine<T>(x, m.W_key, no_bias<T, O>);
  const auto v = S::template affine<T>(x, m.W_value, no_bias<T, O>);
  return attend<S, true, T>(q, k, v);
}

/// self_attention (not causal).
template <class S, class X, class T, std::size_t I, std::size_t O>
constexpr auto run(const self_attention<T, I, O>& m, const X& x) noexcept {
  check_set_features<X::cols, I>();
  const auto q = S::template affine<T>(x, m.W_query, no_bias<T, O>);
  const auto k = S::template affine<T>(x, m.W_key, no_bias<T, O>);
  const auto v = S::template affine<T>(x, m.W_value, no_bias<T, O>);
  return attend<S, false, T>(q, k, v);
}

/// A qkv bias row, or null.
template <bool Has, class M>
constexpr auto qkv_bias_of(const M& m, int which) noexcept {
  if constexpr (Has)
    return which == 0 ? &m.b_query : (which == 1 ? &m.b_key : &m.b_value);
  else
    return static_cast<decltype(&m.b_out)>(nullptr);
}

/// multi_head_attention: heads on their columns, concatenated, then the output projection.
template <class S, class X, class T, std::size_t I, std::size_t O, std::size_t H, std::size_t Ctx, bool B>
constexpr auto run(const multi_head_attention<T, I, O, H, Ctx, B>& m, const X& x) noexcept {
  check_set_features<X::cols, I>();
  static_assert(tokens_within_context_length<X::rows, Ctx>,
                "verify::bound(module, set) requires rows(set) <= context_length");
  constexpr std::size_t hd = O / H;
  const auto q = S::template affine<T>(x, m.W_query, qkv_bias_of<B>(m, 0));
  const auto k = S::template affine<T>(x, m.W_key, qkv_bias_of<B>(m, 1));
  const auto v = S::template affine<T>(x, m.W_value, qkv_bias_of<B>(m, 2));
  typename S::template mat<X::rows, O> context;
  for (std::size_t h = 0; h < H; ++h) {
    const auto head = attend<S, true, T>(S::template slice<hd>(q, h * hd), S::template slice<hd>(k, h * hd),
                                         S::template slice<hd>(v, h * hd));
    S::template assign<hd>(context, head, h * hd);
  }
  return S::template affine<T>(context, m.W_out, &m.b_out);
}

/// transformer_block: x + att(norm1(x)), then + ff(norm2(.)).
template <class S, class X, class T, std::size_t D, std::size_t H, std::size_t Ctx, bool B>
constexpr auto run(const transformer_block<T, D, H, Ctx, B>& m, const X& x) noexcept {
  X h = S::template add<T>(x, run<S>(m.att, run<S>(m.norm1, x)));
  S::share_errors(h);
  X y = S::template add<T>(h, run<S>(m.ff, run<S>(m.norm2, h)));
  S::share_errors(y);
  return y;
}

/// A fold step over a model's blocks, in place.
template <class S, class X>
struct run_block {
  X* x;
  template <class Block>
  constexpr void operator()(const Block& block) const noexcept {
    *x = run<S>(block, *x);
  }
};

}  // namespace static_attention::verify::detail

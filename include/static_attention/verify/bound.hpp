// SPDX-License-Identifier: BSL-1.0
// verify::bound, verify::gelu, verify::softmax: the output intervals of a module over a set.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include <boost/hana/for_each.hpp>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/stack_limit.hpp>
#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/verify/detail/propagate.hpp>
#include <static_attention/verify/domains.hpp>
#include <static_attention/verify/interval.hpp>

namespace static_attention::verify {

namespace detail {
/// A box of T, exactly, in double.
template <class T, std::size_t R, std::size_t C>
constexpr dbox<R, C> widen_box(const box<T, R, C>& b) noexcept {
  dbox<R, C> d;
  for (std::size_t k = 0; k < R * C; ++k)
    d.elems[k] = {static_cast<double>(b.elems[k].lo), static_cast<double>(b.elems[k].hi)};
  return d;
}
/// A box of double as T, rounded outward.
template <class T, std::size_t R, std::size_t C>
constexpr box<T, R, C> narrow_box(const dbox<R, C>& d) noexcept {
  box<T, R, C> b;
  for (std::size_t k = 0; k < R * C; ++k) b.elems[k] = {round_down_to<T>(d.elems[k].lo), round_up_to<T>(d.elems[k].hi)};
  return b;
}
/// The steps of domain D for a set of R x C elements.
template <class D, std::size_t R, std::size_t C>
using steps_for = typename D::template steps<R * C>;

/// The widest row a module's steps hold: its features in and out, and a feed-forward's hidden
/// layer (its own, or its block's).
template <class M>
constexpr std::size_t widest_features() noexcept {
  std::size_t w = M::in_features > M::out_features ? M::in_features : M::out_features;
  if constexpr (requires(const M& m) { m.expand; })
    w = w > std::remove_cvref_t<decltype(std::declval<const M&>().expand)>::out_features
            ? w
            : std::remove_cvref_t<decltype(std::declval<const M&>().expand)>::out_features;
  if constexpr (requires(const M& m) { m.ff.expand; })
    w = w > std::remove_cvref_t<decltype(std::declval<const M&>().ff.expand)>::out_features
            ? w
            : std::remove_cvref_t<decltype(std::declval<const M&>().ff.expand)>::out_features;
  return w;
}

/// The stack a bound over N rows holds at once, from above: six of the domain's N x W matrices
/// (W the widest row) and four N x N ones (the scores). Measured on transformer_block (GCC 12,
/// -O0 and -O2, intervals and zonotopes): 4.3 to 5.0 of the N x W matrices.
template <class S, std::size_t N, std::size_t W>
inline constexpr std::size_t bound_stack_bytes = 6 * sizeof(typename S::template mat<N, W>) +
                                                 4 * sizeof(typename S::template mat<N, N>);

/// check_stack's advice for a bound too large for the stack: fewer noise symbols (or intervals),
/// fewer rows, or a larger STATIC_ATTENTION_STACK_LIMIT and a thread with that much stack.
struct instead_fewer_symbols_or_rows_or_a_larger_stack_limit {};

/// The input embeddings of ids, as gpt_model computes them: tok_emb(ids) + pos_emb(arange(N)).
template <class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr matrix<T, N, Cfg.emb_dim> input_embeddings(const gpt_model<T, Cfg>& model,
                                                     const std::array<I, N>& ids) noexcept {
  return model.tok_emb(ids) + model.pos_emb.template rows<N>();
}

/// The final-norm hidden states of a GPT over the ball of radius eps around ids' embeddings.
template <class S, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr auto gpt_hidden(const gpt_model<T, Cfg>& model, const std::array<I, N>& ids, T eps) noexcept {
  static_attention::detail::check_gpt_tokens<N, Cfg.context_length>();
  auto x = S::from_box(widen_box(ball(input_embeddings(model, ids), eps)));
  boost::hana::for_each(model.trf_blocks, run_block<S, decltype(x)>{&x});
  return x;
}
}  // namespace detail

/// Per-element intervals of module(x) for every x in set (a box, e.g. ball(x, eps)), in the
/// module's output shape; domain D: relational (zonotope, the default) or ibp. Sound for the
/// T values the module's forward pass computes, constexpr and at run time. Takes linear_layer,
/// layer_norm, feed_forward, self_attention, causal_attention, multi_head_attention and
/// transformer_block. A bound whose intermediates would exceed stack_limit (1 MiB by default)
/// is a compile error naming the bytes, as the forward passes' are.
template <domain D = relational, class Module, class T, std::size_t N, std::size_t C>
constexpr auto bound(const Module& module, const box<T, N, C>& set) noexcept {
  using S = detail::steps_for<D, N, C>;
  static_attention::detail::check_stack<detail::bound_stack_bytes<S, N, detail::widest_features<Module>()>,
                                        detail::instead_fewer_symbols_or_rows_or_a_larger_stack_limit>();
  const auto y = S::concretize(detail::run<S>(module, S::from_box(detail::widen_box(set))));
  return detail::narrow_box<T>(y);
}

/// Per-element intervals of the logits of model(ids) over every perturbation of the input
/// embeddings (token plus position) of l-infinity norm at most eps: N x vocab_size.
template <domain D = relational, class T, gpt_config Cfg, token_id I, std::size_t N>
constexpr box<T, N, Cfg.vocab_size> bound(const gpt_model<T, Cfg>& model, const std::array<I, N>& ids, T eps) noexcept {
  using S = detail::steps_for<D, N, Cfg.emb_dim>;
  constexpr std::size_t widest = Cfg.vocab_size > 4 * Cfg.emb_dim ? Cfg.vocab_size : 4 * Cfg.emb_dim;
  static_attention::detail::check_stack<detail::bound_stack_bytes<S, N, widest>,
                                        detail::instead_fewer_symbols_or_rows_or_a_larger_stack_limit>();
  const auto h = S::template norm<T>(detail::gpt_hidden<S>(model, ids, eps), model.final_norm);
  return detail::narrow_box<T>(S::concretize(
      S::template affine<T>(h, model.out_head, static_cast<const matrix<T, 1, Cfg.vocab_size>*>(nullptr))));
}

/// Per-element intervals of gelu(x) (nn/gelu.hpp) for every x in set.
template <domain D = relational, class T, std::size_t R, std::size_t C>
constexpr box<T, R, C> gelu(const box<T, R, C>& set) noexcept {
  using S = detail::steps_for<D, R, C>;
  return detail::narrow_box<T>(S::concretize(S::template gelu<T>(S::from_box(detail::widen_box(set)))));
}

/// Per-element intervals of softmax(x) (core/softmax.hpp, over each row) for every x in set.
template <domain D = relational, class T, std::size_t R, std::size_t C>
constexpr box<T, R, C> softmax(const box<T, R, C>& set) noexcept {
  using S = detail::steps_for<D, R, C>;
  if constexpr (R == C) {
    return detail::narrow_box<T>(S::concretize(S::template softmax<T, false>(S::from_box(detail::widen_box(set)))));
  } else {
    // A row at a time through the square step: each row alone (1 x C).
    box<T, R, C> out;
    for (std::size_t i = 0; i < R; ++i) {
      box<T, C, C> row;
      for (std::size_t j = 0; j < C; ++j) row.elems[j] = set.elems[i * C + j];
      const box<T, C, C> y = softmax<D>(row);
      for (std::size_t j = 0; j < C; ++j) out.elems[i * C + j] = y.elems[j];
    }
    return out;
  }
}

}  // namespace static_attention::verify

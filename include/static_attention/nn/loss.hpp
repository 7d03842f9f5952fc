// SPDX-License-Identifier: BSL-1.0
// Chapter 5's first measures: log_softmax, cross_entropy (torch.nn.functional.cross_entropy of
// the flattened logits and targets), perplexity, and mse_loss (nn.MSELoss, chapter 4's demo).
//
// The arithmetic is torch 1.13's on the CPU (AVX2 build, one thread), so the losses print
// torch's digits: log_softmax subtracts the row's maximum, sums exp(x - max) in eight float
// lanes (four double lanes) reduced as torch's Vectorized<T> reduces them, and gives
// (x - max) - log(sum); the mean over the tokens adds in nll_loss's cascade of eight levels.
// Only exp and log differ from torch's (this library's, <= 1 ulp, against SLEEF's).
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <span>
#include <type_traits>

#include <static_attention/core/detail/fp_contract.hpp>
#include <static_attention/core/math.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/core/reduce.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/core/shape.hpp>
#include <static_attention/core/shape_rules.hpp>
#include <static_attention/core/tensor.hpp>
#include <static_attention/nn/token_ids.hpp>

namespace static_attention {

/// cross_entropy(logits, targets) has one target per token: N x V logits take N targets,
/// B x N x V logits a B x N matrix of them. `targets_match_tokens<shape<3, 5>, shape<4>>` is false.
template <class LogitsShape, class TargetsShape>
inline constexpr bool targets_match_tokens = false;
template <std::size_t N, std::size_t V, std::size_t N2>
inline constexpr bool targets_match_tokens<shape<N, V>, shape<N2>> = N == N2;
template <std::size_t B, std::size_t N, std::size_t V, std::size_t B2, std::size_t N2>
inline constexpr bool targets_match_tokens<shape<B, N, V>, shape<B2, N2>> = B == B2&& N == N2;

/// Targets checked by check_ids<VocabSize>() fit logits of V columns: VocabSize <= V.
/// `targets_checked_within_vocabulary<64, 50257>` is true; `<50257, 64>` is false.
template <std::size_t VocabSize, std::size_t V>
inline constexpr bool targets_checked_within_vocabulary = VocabSize <= V;

namespace detail {

// Not constexpr: reaching it in constant evaluation stops the compiler, and the diagnostic names
// the vocabulary (the logits' columns), the target and its position.
template <std::size_t V>
void cross_entropy_target_outside_vocabulary(long long /*target*/, std::size_t /*position*/) noexcept {}

template <class T>
constexpr void check_loss_element() noexcept {
  static_assert(is_floating_element<T>,
                "cross_entropy(logits, targets) and log_softmax(x) require floating-point logits (float or double)");
}

template <class LogitsShape, class TargetsShape>
constexpr void check_targets_match_tokens() noexcept {
  static_assert(targets_match_tokens<LogitsShape, TargetsShape>,
                "cross_entropy(logits, targets) requires one target per token: N x V logits take N targets, "
                "B x N x V logits a B x N matrix of targets");
}

// The lanes of torch's Vectorized<T> in its AVX2 kernels: 256 bits.
template <class T>
inline constexpr std::size_t torch_lanes = 32 / sizeof(T);

// The row's maximum, NaN if the row holds one (torch's vec::maximum propagates NaN).
template <class T>
constexpr T row_max(const T* x, std::size_t n) noexcept {
  T m = x[0];
  for (std::size_t k = 0; k < n; ++k) {
    if (x[k] != x[k]) return x[k];
    if (x[k] > m) m = x[k];
  }
  return m;
}

// Sum of exp(x[k] - max) over the row as torch's map_reduce_all adds it: lane l holds the
// elements l, l + lanes, ..., the last partial vector adds to the first lanes, and the lanes
// reduce as its vec_reduce_all does (float: the AVX2 halving tree; double: lane by lane). A row
// shorter than one vector adds left to right. exp runs a chunk at a time through its array
// overload (the scalar's bits) with a fixed buffer, whatever the row's length.
template <class T>
constexpr T sum_exp_shifted(const T* x, std::size_t n, T max) noexcept {
  constexpr std::size_t lanes = torch_lanes<T>;
  constexpr std::size_t chunk = 64 * lanes;
  T buf[chunk]{};
  T acc[lanes]{};
  if (n < lanes) {
    for (std::size_t k = 0; k < n; ++k) buf[k] = x[k] - max;
    static_attention::exp(std::span<const T>{buf, n}, std::span<T>{buf, n});
    T s = buf[0];
    for (std::size_t k = 1; k < n; ++k) s = s + buf[k];
    return s;
  }
  for (std::size_t done = 0; done < n; done += chunk) {
    const std::size_t count = n - done < chunk ? n - done : chunk;
    for (std::size_t k = 0; k < count; ++k) buf[k] = x[done + k] - max;
    static_attention::exp(std::span<const T>{buf, count}, std::span<T>{buf, count});
    // Element done + k goes to lane (done + k) % lanes; chunk is a multiple of lanes.
    std::size_t k = 0;
    if (done == 0) {
      for (std::size_t l = 0; l < lanes; ++l) acc[l] = buf[l];
      k = lanes;
    }
    for (; k < count; ++k) acc[k % lanes] = acc[k % lanes] + buf[k];
  }
  if constexpr (std::is_same_v<T, float>) {
    for (std::size_t width = lanes / 2; width >= 1; width /= 2)
      for (std::size_t l = 0; l < width; ++l) acc[l] = acc[l] + acc[l + width];
    return acc[0];
  } else {
    T s = acc[0];
    for (std::size_t l = 1; l < lanes; ++l) s = s + acc[l];
    return s;
  }
}

// The shift of a row's log_softmax: its maximum and log(sum(exp(x - max))).
template <class T>
struct log_softmax_shift {
  T max;
  T log_sum;
};

template <class T>
constexpr log_softmax_shift<T> row_shift(const T* x, std::size_t n) noexcept {
  const T m = row_max(x, n);
  return {m, static_attention::log(sum_exp_shifted(x, n, m))};
}

// nll_loss's mean over `count` log-probabilities, added as torch 1.13 adds them: a cascade of
// eight partial sums, each level taking 2^level_power values of the one below, the partials
// then added lowest first and the total divided by the count.
template <class T>
class nll_mean {
 public:
  constexpr explicit nll_mean(std::size_t count) noexcept : count_(count) {
    const std::size_t log2 = ceil_log2(count);
    level_power_ = log2 / levels > 4 ? log2 / levels : 4;
  }
  // Adds -log_prob, the loss of the next token.
  constexpr void add(T log_prob) noexcept {
    partial_[0] = partial_[0] - log_prob;
    const std::size_t mask = (std::size_t{1} << level_power_) - 1;
    for (std::size_t j = 0; j + 1 < levels; ++j) {
      if ((index_ & (mask << (j * level_power_))) != 0) break;
      partial_[j + 1] = partial_[j + 1] + partial_[j];
      partial_[j] = T{};
    }
    ++index_;
  }
  constexpr T value() const noexcept {
    T total{};
    for (const T p : partial_) total = total + p;
    return total / static_cast<T>(count_);
  }

 private:
  static constexpr std::size_t levels = 8;
  static constexpr std::size_t ceil_log2(std::size_t x) noexcept {
    if (x <= 2) return 1;
    std::size_t v = x - 1;
    std::size_t bits = 0;
    for (; v != 0; v >>= 1) ++bits;
    return bits;
  }
  T partial_[levels]{};
  std::size_t count_;
  std::size_t index_ = 0;
  std::size_t level_power_ = 4;
};

// The position of the first target outside [0, V), or count. In constant evaluation one outside
// is a compile error naming it.
template <std::size_t V, token_id I>
constexpr std::size_t first_bad_target(const I* targets, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) {
    if (!in_vocabulary<V>(targets[i])) {
      if (std::is_constant_evaluated())
        cross_entropy_target_outside_vocabulary<V>(static_cast<long long>(targets[i]), i);
      return i;
    }
  }
  return count;
}

template <std::size_t V, token_id I>
constexpr error bad_target_error(const I* targets, std::size_t at) noexcept {
  return make_error(errc::id_out_of_range, "cross_entropy(logits, targets): target ",
                    static_cast<long long>(targets[at]), " at position ", at, " is outside the vocabulary [0, ", V,
                    ") of the logits");
}

// The mean cross entropy of `tokens` rows of V logits against targets known to be in [0, V).
template <class T, std::size_t V, token_id I>
constexpr T cross_entropy_rows(const T* logits, const I* targets, std::size_t tokens) noexcept {
  nll_mean<T> mean(tokens);
  for (std::size_t i = 0; i < tokens; ++i) {
    const T* row = logits + i * V;
    const auto shift = row_shift(row, V);
    mean.add((row[static_cast<std::size_t>(targets[i])] - shift.max) - shift.log_sum);
  }
  return mean.value();
}

}  // namespace detail

/// torch.log_softmax(x, dim=-1): each row's (x - max) - log(sum(exp(x - max))), stable for any
/// logits (a row holding -inf gives -inf there; one holding NaN gives NaN).
template <dense M>
constexpr M log_softmax(const M& x) noexcept {
  using T = value_type_t<M>;
  detail::check_loss_element<T>();
  M out;
  if constexpr (is_floating_element<T>) {
    constexpr std::size_t C = M::cols();
    for (std::size_t r = 0; r < M::size / C; ++r) {
      const T* row = x.elems + r * C;
      const auto shift = detail::row_shift(row, C);
      for (std::size_t j = 0; j < C; ++j) out.elems[r * C + j] = (row[j] - shift.max) - shift.log_sum;
    }
  }
  return out;
}

/// The mean cross entropy of one sequence's N x V logits against its N target ids, as
/// `torch.nn.functional.cross_entropy(logits, targets)`. A target outside [0, V) is
/// errc::id_out_of_range naming it and its position (in constant evaluation, a compile error).
template <class T, std::size_t N, std::size_t V, token_id I, std::size_t N2>
constexpr result<T> cross_entropy(const matrix<T, N, V>& logits, const std::array<I, N2>& targets) noexcept {
  detail::check_loss_element<T>();
  detail::check_targets_match_tokens<shape<N, V>, shape<N2>>();
  if constexpr (is_floating_element<T> && N == N2) {
    if (const std::size_t bad = detail::first_bad_target<V>(targets.data(), N); bad < N)
      return detail::bad_target_error<V>(targets.data(), bad);
    return detail::cross_entropy_rows<T, V>(logits.elems, targets.data(), N);
  } else {
    return T{};
  }
}

/// cross_entropy on targets checked by check_ids<VocabSize>() (VocabSize <= V): no error to
/// report, so the loss itself.
template <class T, std::size_t N, std::size_t V, std::size_t VocabSize, std::size_t N2, token_id I>
constexpr T cross_entropy(const matrix<T, N, V>& logits, const token_ids<VocabSize, N2, I>& targets) noexcept {
  detail::check_loss_element<T>();
  detail::check_targets_match_tokens<shape<N, V>, shape<N2>>();
  static_assert(targets_checked_within_vocabulary<VocabSize, V>,
                "cross_entropy(logits, targets) requires targets checked against at most the logits' V columns: "
                "check_ids<V>(ids)");
  if constexpr (is_floating_element<T> && N == N2 && VocabSize <= V)
    return detail::cross_entropy_rows<T, V>(logits.elems, targets.ids().data(), N);
  else
    return T{};
}

/// The mean cross entropy over every token of a batch, B x N x V logits against B x N targets:
/// `torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())`, the book's
/// calc_loss_batch. A target outside [0, V) is errc::id_out_of_range naming it and its position
/// in the flattened batch (in constant evaluation, a compile error).
template <class T, std::size_t B, std::size_t N, std::size_t V, token_id I, std::size_t B2, std::size_t N2>
constexpr result<T> cross_entropy(const tensor<T, B, N, V>& logits, const matrix<I, B2, N2>& targets) noexcept {
  detail::check_loss_element<T>();
  detail::check_targets_match_tokens<shape<B, N, V>, shape<B2, N2>>();
  if constexpr (is_floating_element<T> && B == B2 && N == N2) {
    if (const std::size_t bad = detail::first_bad_target<V>(targets.elems, B * N); bad < B * N)
      return detail::bad_target_error<V>(targets.elems, bad);
    return detail::cross_entropy_rows<T, V>(logits.elems, targets.elems, B * N);
  } else {
    return T{};
  }
}

/// Perplexity, `torch.exp(loss)`: how many tokens the model is choosing between, in effect (a
/// uniform guess over k tokens has perplexity k).
template <class T>
requires is_floating_element<T>
constexpr T perplexity(T loss) noexcept { return static_attention::exp(loss); }

/// nn.MSELoss() (reduction "mean"): the mean of (input - target)^2, added in torch's order.
template <dense A, dense B>
constexpr value_type_t<A> mse_loss(const A& input, const B& target) noexcept {
  static_assert(shapes_equal<shape_t<A>, shape_t<B>>, "mse_loss(input, target) requires input and target of one shape");
  static_assert(element_types_equal<value_type_t<A>, value_type_t<B>>,
                "mse_loss(input, target) requires input and target of one element type");
  static_assert(is_floating_element<value_type_t<A>>, "mse_loss(input, target) requires a floating-point element type");
  using T = value_type_t<A>;
  if constexpr (shapes_equal<shape_t<A>, shape_t<B>> && element_types_equal<T, value_type_t<B>> &&
                is_floating_element<T>) {
    A squared;
    for (std::size_t k = 0; k < A::size; ++k) {
      T d = input.elems[k] - target.elems[k];
      squared.elems[k] = detail::rounded_product(d, d);
    }
    return mean(squared).item();
  } else {
    return T{};
  }
}

}  // namespace static_attention

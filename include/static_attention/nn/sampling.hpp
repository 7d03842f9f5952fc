// SPDX-License-Identifier: BSL-1.0
// Sampling as the book's chapter-5 `generate(model, idx, max_new_tokens, context_size,
// temperature, top_k, eos_id)`: top-k filtering, temperature scaling, torch.multinomial and an
// end-of-sequence id, drawing from torch_generator exactly as PyTorch 1.13 draws on the CPU
// (see docs/sampling.md and detail/sampling_torch.hpp for which torch builds).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>

#include <static_attention/core/matrix.hpp>
#include <static_attention/core/random.hpp>
#include <static_attention/core/result.hpp>
#include <static_attention/nn/detail/sampling_torch.hpp>
#include <static_attention/nn/embedding.hpp>
#include <static_attention/nn/gpt.hpp>

namespace static_attention {

/// The book's sampling parameters: `temperature` 0 takes the argmax (greedy), above 0 divides
/// the logits by it (rounded to the model's element type) and draws from their softmax;
/// `top_k` 0 keeps every logit, otherwise only those >= the top_k-th largest; `eos_id` stops
/// the generation before that id would be appended.
struct sampling {
  /// 0: the argmax; > 0: logits / temperature, softmax and a draw.
  double temperature = 0;
  /// 0: none; otherwise the k of top-k.
  std::size_t top_k = 0;
  /// The id before which the generation stops (none: never).
  std::optional<std::int64_t> eos_id;
};

/// The ids of a generation: the prompt, then the new ids; `length` of them are valid (fewer
/// than Size when eos_id came). The ids past `length` are 0.
template <class I, std::size_t Size>
struct generation {
  /// The prompt, then the new ids, then zeros.
  std::array<I, Size> ids{};
  /// How many of ids are valid.
  std::size_t length = 0;
};

namespace detail {
// Deliberately not constexpr: reaching one in constant evaluation is a compile error naming the
// rule, with the offending value as the call's argument.
inline void sampling_temperature_must_be_finite_nonnegative_and_nonzero_in_the_element_type(double) noexcept {}
inline void sampling_top_k_must_not_exceed_vocab_size(std::size_t /*top_k*/, std::size_t /*vocab_size*/) noexcept {}

// 0, or > 0, finite in T and not rounding to 0 in T (the division must not be by zero).
template <class T>
constexpr bool temperature_valid(double t) noexcept {
  return t == 0.0 || (t > 0.0 && t <= static_cast<double>(std::numeric_limits<T>::max()) && static_cast<T>(t) > T{0});
}

// The parameters' error, if any, for a vocabulary of V.
template <class T, std::size_t V>
constexpr std::optional<error> sampling_error(const sampling& s) noexcept {
  if (!temperature_valid<T>(s.temperature))
    return make_error(errc::invalid_argument,
                      "sampling: temperature must be 0 or positive, finite and nonzero in the model's element type");
  if (s.top_k > V)
    return make_error(errc::invalid_argument, "sampling: top_k = ", s.top_k, " exceeds the vocabulary size ", V);
  return std::nullopt;
}

// True if the parameters are valid; a compile error in constant evaluation if not.
template <class T, std::size_t V>
constexpr bool check_sampling(const sampling& s) noexcept {
  if (!temperature_valid<T>(s.temperature)) {
    if (std::is_constant_evaluated())
      sampling_temperature_must_be_finite_nonnegative_and_nonzero_in_the_element_type(s.temperature);
    return false;
  }
  if (s.top_k > V) {
    if (std::is_constant_evaluated()) sampling_top_k_must_not_exceed_vocab_size(s.top_k, V);
    return false;
  }
  return true;
}
}  // namespace detail

/// The next id after one row of logits, as the book's generate picks it from `logits[:, -1, :]`
/// with PyTorch 1.13 on the CPU: top-k (`torch.topk`, then `torch.where(logits < min_val,
/// -inf, logits)`), then, if temperature > 0, `logits / temperature`, `torch.softmax` and
/// `torch.multinomial(probs, 1)` drawing from gen (one 64-bit draw per logit); otherwise
/// `torch.argmax(logits)` (no draw). The logits are finite. Invalid parameters are a compile
/// error in constant evaluation; at run time they give the argmax of the unfiltered logits.
template <class T, std::size_t V>
constexpr std::size_t sample_id(matrix<T, 1, V> logits, const sampling& s, torch_generator& gen) noexcept {
  namespace ts = detail::torch_sampling;
  T* x = logits.elems;
  if (!detail::check_sampling<T, V>(s)) return ts::argmax(x, V);
  if (s.top_k != 0) ts::keep_top_k(x, V, s.top_k);
  if (!(s.temperature > 0.0)) return ts::argmax(x, V);
  const T temperature = static_cast<T>(s.temperature);
  for (std::size_t j = 0; j < V; ++j)
    if (x[j] != -std::numeric_limits<T>::infinity()) x[j] = x[j] / temperature;
  ts::softmax_row(x, V);
  return ts::exponential_race(x, V, gen);
}

namespace detail {
// sample_id's choice, stopping before eos_id.
template <class T, gpt_config Cfg, token_id I, class Policy = serial>
struct sampled_choice {
  const gpt_model<T, Cfg>* model;
  const sampling* settings;
  torch_generator* gen;
  Policy policy;
  constexpr std::optional<I> operator()(const matrix<T, 1, Cfg.emb_dim>& h) const noexcept {
    const I next = static_cast<I>(sample_id(head_logits(*model, h, policy), *settings, *gen));
    if (settings->eos_id && static_cast<std::int64_t>(next) == *settings->eos_id) return std::nullopt;
    return next;
  }
};

// The span overload's checks, before anything is written.
template <class T, gpt_config Cfg, std::size_t Capacity, class I>
constexpr std::optional<error> generation_error(std::span<const I> prompt, std::size_t max_new, const sampling& s,
                                                std::size_t out_size) noexcept {
  if (auto e = sampling_error<T, Cfg.vocab_size>(s)) return e;
  const std::size_t n = prompt.size();
  if (n == 0) return make_error(errc::invalid_argument, "generate: the prompt is empty");
  if (n > Capacity)
    return make_error(errc::capacity_exceeded, "generate: a prompt of ", n, " ids exceeds the workspace's capacity ",
                      Capacity);
  if (out_size < n || max_new > out_size - n)
    return make_error(errc::output_too_small, "generate: out holds ", out_size, " ids; the prompt and max_new need ", n,
                      " + ", max_new);
  const std::size_t reads =
      max_new == 0 ? 0 : (max_new - 1 >= Cfg.context_length - n ? Cfg.context_length : n + max_new - 1);
  if (reads > Capacity)
    return make_error(errc::capacity_exceeded, "generate: ", reads, " tokens to hold exceed the workspace's capacity ",
                      Capacity);
  for (std::size_t i = 0; i < n; ++i)
    if (prompt[i] < I{0} || static_cast<std::uint64_t>(prompt[i]) >= Cfg.vocab_size)
      return make_error(errc::id_out_of_range, "generate: prompt id ", prompt[i], " at ", i,
                        " is outside [0, vocab_size = ", Cfg.vocab_size, ")");
  return std::nullopt;
}

template <class P, class O>
inline constexpr bool exact_spans = false;
template <class X, std::size_t E1, std::size_t E2>
inline constexpr bool exact_spans<std::span<const X, E1>, std::span<X, E2>> = true;

template <class R>
using data_element = std::remove_pointer_t<decltype(std::data(std::declval<R&>()))>;
}  // namespace detail

namespace detail {
// The std::array generate's checks and its sampling loop, under a work-sharing policy.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity, class Policy>
constexpr generation<I, N + MaxNew> generate_sampled(const gpt_model<T, Cfg>& model, const std::array<I, N>& prompt,
                                                     gpt_workspace<T, Cfg, Capacity>& workspace, const sampling& s,
                                                     torch_generator& gen, const Policy& policy) noexcept {
  static_assert(N > 0, "generate(model, prompt, workspace, sampling, gen) requires at least one prompt id");
  static_assert(Cfg.vocab_size - 1 <= static_cast<unsigned long long>(std::numeric_limits<I>::max()),
                "generate(model, prompt, workspace, sampling, gen) requires an id type that holds vocab_size - 1");
  constexpr std::size_t longest = N + MaxNew - 1;
  check_workspace_capacity<Capacity, MaxNew == 0 ? 0 : (longest < Cfg.context_length ? longest : Cfg.context_length)>();
  generation<I, N + MaxNew> out;
  for (std::size_t i = 0; i < N; ++i) out.ids[i] = prompt[i];
  out.length = N;
  if (check_sampling<T, Cfg.vocab_size>(s)) {
    sampled_choice<T, Cfg, I, Policy> choose{&model, &s, &gen, policy};
    out.length = decode_steps(model, out.ids.data(), N, MaxNew, workspace, choose, policy);
  }
  return out;
}
}  // namespace detail

/// The book's generate with a KV cache, for a prompt of N ids known at compile time: MaxNew
/// times the next id from `sample_id` (gen drawing as torch does after torch.manual_seed), until
/// eos_id would be appended. The ids and the workspace's use are those of the greedy
/// generate(model, prompt, workspace) (for N + MaxNew <= context_length the book's crop never
/// acts; beyond it each step reruns the last context_length ids, the book's
/// `idx[:, -context_size:]`). The workspace needs min(N + MaxNew - 1, context_length) tokens.
/// Invalid parameters (sampling_error) are a compile error in constant evaluation; at run time
/// they generate nothing (length == N) and leave the workspace and gen as they were: use the
/// span overload to get the error.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
constexpr generation<I, N + MaxNew> generate(const gpt_model<T, Cfg>& model, const std::array<I, N>& prompt,
                                             gpt_workspace<T, Cfg, Capacity>& workspace, const sampling& s,
                                             torch_generator& gen) noexcept {
  return detail::generate_sampled<MaxNew>(model, prompt, workspace, s, gen, detail::serial{});
}

/// generate<MaxNew>(model, prompt, workspace, sampling, gen) with the work split between pool's
/// threads (nn/thread_pool.hpp): the same ids and draws, bit for bit, for every thread count.
/// Run time only.
template <std::size_t MaxNew, class T, gpt_config Cfg, token_id I, std::size_t N, std::size_t Capacity>
generation<I, N + MaxNew> generate(const gpt_model<T, Cfg>& model, const std::array<I, N>& prompt,
                                   gpt_workspace<T, Cfg, Capacity>& workspace, const sampling& s, torch_generator& gen,
                                   thread_pool& pool) noexcept {
  return detail::generate_sampled<MaxNew>(model, prompt, workspace, s, gen, detail::parallel<thread_pool>{&pool});
}

namespace detail {
// The span generate's checks (everything before anything is written) and its sampling loop.
template <class T, gpt_config Cfg, token_id I, std::size_t PromptExtent, std::size_t OutExtent, std::size_t Capacity,
          class Policy>
constexpr result<std::size_t> generate_span(const gpt_model<T, Cfg>& model, std::span<const I, PromptExtent> prompt,
                                            gpt_workspace<T, Cfg, Capacity>& workspace, std::size_t max_new,
                                            const sampling& s, torch_generator& gen, std::span<I, OutExtent> out,
                                            const Policy& policy) noexcept {
  static_assert(Cfg.vocab_size - 1 <= static_cast<unsigned long long>(std::numeric_limits<I>::max()),
                "generate(model, prompt, workspace, max_new, sampling, gen, out) requires an id type that holds "
                "vocab_size - 1");
  if (auto e = generation_error<T, Cfg, Capacity, I>(prompt, max_new, s, out.size())) return *e;
  for (std::size_t i = 0; i < prompt.size(); ++i) out[i] = prompt[i];
  sampled_choice<T, Cfg, I, Policy> choose{&model, &s, &gen, policy};
  return decode_steps(model, out.data(), prompt.size(), max_new, workspace, choose, policy);
}
}  // namespace detail

/// The book's generate for a prompt known only at run time (a command line's): writes the
/// prompt, then up to max_new sampled ids, to out and returns how many it wrote. Errors, with
/// nothing written to out and the workspace and gen untouched: invalid_argument (bad sampling
/// parameters, an empty prompt), capacity_exceeded (a prompt longer than the workspace's
/// capacity, or more than it holds to read: min(N + max_new - 1, context_length)),
/// output_too_small (out holds fewer than N + max_new ids), id_out_of_range (a prompt id < 0
/// or >= vocab_size). A prompt is never cropped here (capacity <= context_length); on success
/// the ids are those of the std::array overload, bit for bit.
template <class T, gpt_config Cfg, token_id I, std::size_t PromptExtent, std::size_t OutExtent, std::size_t Capacity>
constexpr result<std::size_t> generate(const gpt_model<T, Cfg>& model, std::span<const I, PromptExtent> prompt,
                                       gpt_workspace<T, Cfg, Capacity>& workspace, std::size_t max_new,
                                       const sampling& s, torch_generator& gen, std::span<I, OutExtent> out) noexcept {
  return detail::generate_span(model, prompt, workspace, max_new, s, gen, out, detail::serial{});
}

/// The span overload of generate with the work split between pool's threads: the same ids,
/// errors and draws, bit for bit, for every thread count. Run time only.
template <class T, gpt_config Cfg, token_id I, std::size_t PromptExtent, std::size_t OutExtent, std::size_t Capacity>
result<std::size_t> generate(const gpt_model<T, Cfg>& model, std::span<const I, PromptExtent> prompt,
                             gpt_workspace<T, Cfg, Capacity>& workspace, std::size_t max_new, const sampling& s,
                             torch_generator& gen, std::span<I, OutExtent> out, thread_pool& pool) noexcept {
  return detail::generate_span(model, prompt, workspace, max_new, s, gen, out, detail::parallel<thread_pool>{&pool});
}

/// The same for any contiguous containers of ids (std::array, std::vector, C arrays): forwards
/// to the span overload.
template <class T, gpt_config Cfg, std::size_t Capacity, class Prompt, class Out>
requires(
    !detail::exact_spans<std::remove_cvref_t<Prompt>, std::remove_cvref_t<Out>> &&
    requires(const Prompt& p, Out& o) {
      std::size(p);
      std::size(o);
    } &&
    token_id<std::remove_const_t<detail::data_element<const Prompt>>> &&
    std::is_same_v<std::remove_const_t<detail::data_element<const Prompt>>,
                   detail::data_element<Out>>) constexpr result<std::size_t> generate(const gpt_model<T, Cfg>& model,
                                                                                      const Prompt& prompt,
                                                                                      gpt_workspace<T, Cfg, Capacity>&
                                                                                          workspace,
                                                                                      std::size_t max_new,
                                                                                      const sampling& s,
                                                                                      torch_generator& gen,
                                                                                      Out&& out) noexcept {
  using I = detail::data_element<Out>;
  return generate(model, std::span<const I>(std::data(prompt), std::size(prompt)), workspace, max_new, s, gen,
                  std::span<I>(std::data(out), std::size(out)));
}

}  // namespace static_attention

// SPDX-License-Identifier: BSL-1.0
// footprint<Model, Workspace>: a model's memory plan as a compile-time value (flash, ram, stack),
// so that a build can guard its budget: static_assert(footprint<M, W>.ram <= 64 * 1024).
// The float GPT's plan is here; quant/footprint.hpp adds the int8 GPT's.
#pragma once

#include <cstddef>

#include <static_attention/core/result.hpp>
#include <static_attention/nn/gpt.hpp>

namespace static_attention {

/// Bytes a model and its workspace take on a device.
struct memory_plan {
  /// Read-only bytes: the model (weights, biases, tables, multipliers): sizeof(Model), in
  /// flash when the model is a `static const` or constexpr object.
  std::size_t flash = 0;
  /// Read-write bytes: the workspace (caches and buffers) plus `stack`.
  std::size_t ram = 0;
  /// A bound of the stack a decode loop puts on top of its caller's frame (generate(model,
  /// prompt, workspace) less the result it returns, sizeof(result<std::array<I, N + MaxNew>>),
  /// which is the caller's; one step is one hidden(ids, workspace) of one id, or a prefill of
  /// the last context_length ids past the context, and the choice of the next id from its
  /// logits): the large locals it holds at once, counted from the shapes, plus
  /// `frame_allowance`.
  std::size_t stack = 0;
  friend constexpr bool operator==(const memory_plan&, const memory_plan&) = default;
};

/// What memory_plan::stack adds to the locals it counts for the frames themselves (saved
/// registers, return addresses, loop variables, small scalars): checked against GCC's
/// -fstack-usage on x86-64 and the painted stack of tests/device_int8 (docs/embedded.md, "Memory
/// plan").
inline constexpr std::size_t frame_allowance = 1024;

namespace detail {
template <class Model, class Workspace>
inline constexpr bool footprint_known = false;

// The results a decode loop holds at once, each with room for an error: admit()'s, hidden()'s
// and prefill()'s, the loop's slots for both once they are inlined into it, and an error under
// construction (GCC -O3 on the Cortex-M4F keeps them apart: tests/device_int8).
inline constexpr std::size_t decode_step_results = 6 * sizeof(error);

// The plan of a model and its workspace; specialised for each model family.
template <class Model, class Workspace>
struct footprint_of {
  static_assert(footprint_known<Model, Workspace>,
                "footprint<Model, Workspace> requires a model and its workspace: gpt_model<T, Cfg> with "
                "gpt_workspace<T, Cfg, Capacity>, or quantized_gpt<Cfg> with quantized_gpt_workspace<Cfg, Capacity> "
                "(static_attention/quant/footprint.hpp)");
  static constexpr memory_plan plan{};
};

template <class T, gpt_config Cfg, std::size_t Capacity>
struct footprint_of<gpt_model<T, Cfg>, gpt_workspace<T, Cfg, Capacity>> {
  // A decode step: its results, the hidden state and its copies (3 rows of emb_dim), the logits
  // and their softmax (2 rows of vocab_size), a LayerNorm row.
  static constexpr std::size_t stack =
      decode_step_results + 4 * sizeof(T) * Cfg.emb_dim + 2 * sizeof(T) * Cfg.vocab_size + frame_allowance;
  static constexpr memory_plan plan{sizeof(gpt_model<T, Cfg>), sizeof(gpt_workspace<T, Cfg, Capacity>) + stack, stack};
};
}  // namespace detail

/// The memory plan of Model run with Workspace, a compile-time value:
/// `static_assert(footprint<gpt_model<float, cfg>, gpt_workspace<float, cfg, 8>>.ram <= 64 * 1024)`.
template <class Model, class Workspace>
inline constexpr memory_plan footprint = detail::footprint_of<Model, Workspace>::plan;

}  // namespace static_attention

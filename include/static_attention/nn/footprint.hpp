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
  /// A bound of the stack generate(model, prompt, workspace) puts on top of its caller's frame,
  /// less the result it returns (sizeof(result<std::array<I, N + MaxNew>>), the caller's): the
  /// large locals its decode loop holds at once, counted from the shapes, plus the target's
  /// measured allowance for the frames (frame_allowance). A loop of the caller's own over
  /// hidden() or prefill() holds their results too, each with room for an error.
  std::size_t stack = 0;
  friend constexpr bool operator==(const memory_plan&, const memory_plan&) = default;
};

namespace detail {
// The bytes memory_plan::stack adds to the locals it counts from the shapes, for the frames
// themselves (saved registers, spills, loop state, what inlining keeps apart): measured, per
// build, as the painted stack of generate<16> (tests/device_int8, GCC 12, the tiny GPT) less the
// counted locals, then rounded up by about 4%. Keyed on the compiler's predefined macros; a build
// not listed gets `unmeasured`, above every measured one, and should be measured before it is
// trusted (docs/embedded.md, "Memory plan").
struct frame_allowances {
  std::size_t float_gpt;  // gpt_model<float, Cfg>
  std::size_t int8_gpt;   // quantized_gpt<Cfg>
};
inline constexpr frame_allowances unmeasured{2048, 2048};
consteval frame_allowances target_frame_allowances() noexcept {
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && defined(__arm__)
#if defined(__ARM_FEATURE_MVE) && !defined(__OPTIMIZE_SIZE__)
  return {1250, 1032};  // Cortex-M55 (Helium), -O3
#elif defined(__ARM_ARCH_7EM__) && !defined(__OPTIMIZE_SIZE__) && defined(__ARM_FP) && (__ARM_FP & 8)
  return {492, 840};  // Cortex-M7 (ARMv7E-M, double-precision FPU), -O3
#elif defined(__ARM_ARCH_7EM__) && !defined(__OPTIMIZE_SIZE__) && defined(__ARM_FP)
  return {484, 840};  // Cortex-M4F (ARMv7E-M, single-precision FPU), -O3
#elif (defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_8M_MAIN__)) && defined(__OPTIMIZE_SIZE__)
#if defined(__ARM_FP)
  return {520, 52};  // Cortex-M33 (ARMv8-M Mainline, hard float), -Os
#else
  return {542, 52};  // Cortex-M3 (ARMv7-M, float in software), -Os
#endif
#else
  return unmeasured;
#endif
#else
  return unmeasured;
#endif
}
}  // namespace detail

/// What memory_plan::stack adds to the locals it counts for the frames themselves, on the build
/// being compiled: the float GPT's (the int8 GPT's is detail::target_frame_allowances()'s
/// int8_gpt). Measured per target (docs/embedded.md, "Memory plan").
inline constexpr std::size_t frame_allowance = detail::target_frame_allowances().float_gpt;

namespace detail {
template <class Model, class Workspace>
inline constexpr bool footprint_known = false;

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
  // A decode step's locals (generate's loop keeps no result, so no room for an error): the
  // hidden state of the last position and a LayerNorm row (emb_dim each), the logits and their
  // softmax (vocab_size each); then the frames.
  static constexpr std::size_t stack = sizeof(T) * (2 * Cfg.emb_dim + 2 * Cfg.vocab_size) + frame_allowance;
  static constexpr memory_plan plan{sizeof(gpt_model<T, Cfg>), sizeof(gpt_workspace<T, Cfg, Capacity>) + stack, stack};
};
}  // namespace detail

/// The memory plan of Model run with Workspace, a compile-time value:
/// `static_assert(footprint<gpt_model<float, cfg>, gpt_workspace<float, cfg, 8>>.ram <= 64 * 1024)`.
template <class Model, class Workspace>
inline constexpr memory_plan footprint = detail::footprint_of<Model, Workspace>::plan;

}  // namespace static_attention

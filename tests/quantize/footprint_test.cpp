// SPDX-License-Identifier: BSL-1.0
// footprint<Model, Workspace> (nn/footprint.hpp, quant/footprint.hpp): the memory plan of the
// tiny GPT, float and int8, as compile-time values: flash is the model's bytes, ram the
// workspace's plus the stack bound, and a budget is a static_assert. Type-level and constexpr
// truths only; the stack bound is checked against the measured stack in tests/device_int8 and
// docs/embedded.md ("Memory plan").
#include <cstddef>
#include <type_traits>

#include <static_attention/nn/footprint.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/quant/footprint.hpp>

#include <doctest/doctest.h>

namespace sa = static_attention;

namespace {

inline constexpr sa::gpt_config tiny{64, 8, 16, 2, 2, false};
using float_model = sa::gpt_model<float, tiny>;
using float_ws = sa::gpt_workspace<float, tiny, 8>;
using int8_model = sa::quantized_gpt<tiny>;
using int8_ws = sa::quantized_gpt_workspace<tiny, 8>;

// [snippet:memory_plan]
constexpr sa::memory_plan f = sa::footprint<float_model, float_ws>;  // gpt_model<float, tiny>, 8 tokens
constexpr sa::memory_plan q = sa::footprint<int8_model, int8_ws>;    // quantized_gpt<tiny>, 8 tokens
static_assert(q.ram <= 64 * 1024 && q.flash <= 256 * 1024);          // a build's budget
// [/snippet]

// flash: the model's bytes; ram: the workspace's plus the stack bound.
static_assert(f.flash == sizeof(float_model) && q.flash == sizeof(int8_model));
static_assert(f.ram == sizeof(float_ws) + f.stack && q.ram == sizeof(int8_ws) + q.stack);
static_assert(f.stack >= sa::frame_allowance && q.stack >= sa::detail::target_frame_allowances().int8_gpt);
// The budgets a build can guard: both fit a 64 KiB RAM and a 256 KiB flash.
static_assert(q.ram <= 64 * 1024 && f.ram <= 64 * 1024);
static_assert(q.flash <= 256 * 1024 && f.flash <= 256 * 1024);
// int8: weights a byte instead of four; the cache int16 codes instead of floats.
static_assert(q.flash * 5 < f.flash * 2);
static_assert(sizeof(int8_ws) < sizeof(float_ws));
// The plan grows with the workspace's capacity, not the model's flash.
static_assert(sa::footprint<int8_model, sa::quantized_gpt_workspace<tiny, 4>>.ram < q.ram);
static_assert(sa::footprint<int8_model, sa::quantized_gpt_workspace<tiny, 4>>.flash == q.flash);
// GPT-2 124M at 1024 tokens, float: the book's 124M parameters (plus the output head, untied)
// and 72 MiB of caches; no Cortex-M budget.
using gpt2 = sa::gpt_model<float, sa::gpt2_124m>;
static_assert(sa::footprint<gpt2, sa::gpt_workspace<float, sa::gpt2_124m, 1024>>.flash == sizeof(gpt2));
static_assert(sa::footprint<gpt2, sa::gpt_workspace<float, sa::gpt2_124m, 1024>>.ram > 72u * 1024 * 1024);

}  // namespace

TEST_CASE("footprint: the tiny GPT's plans, float and int8, are compile-time values") {
  CHECK(f.flash == sizeof(float_model));
  CHECK(q.ram == sizeof(int8_ws) + q.stack);
  MESSAGE("float: flash ", f.flash, ", ram ", f.ram, ", stack ", f.stack, "; int8: flash ", q.flash, ", ram ", q.ram,
          ", stack ", q.stack);
}

// SPDX-License-Identifier: BSL-1.0
// int8 against float on the device: the 16 -> 16 four-head attention of tests/quantize, the
// chapter's 3 -> 2 and the tiny GPT (logits of 8 ids), run on 8 tokens, float and int8, on a Cortex-M3 (no FPU: float
// in software) or a Cortex-M4F under QEMU with -icount shift=0 (one instruction per virtual nanosecond). It prints, per
// forward pass: instructions (SysTick at 25 MHz: one tick per 40 instructions), the deepest stack it used (a painted
// stack, measured), and the model's bytes; and it checks that the int8 outputs are the constant evaluator's, bit for
// bit, and within the error bound of tests/quantize. Then the int8 tiny GPT generates 16 tokens with its KV cache
// (generate(q, prompt, workspace), the workspace static) and without (generate_text_simple), and one decode step
// within the context runs alone, float and int8: instructions per token, the painted stack of generate<16> (from the
// caller's stack pointer, less its result) against footprint<>'s plan, which must be at least the painted stack and at
// most 1.10 times it, and the ids against the constant evaluator's. Exit status 0 when everything holds.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <static_attention/core/elementwise.hpp>
#include <static_attention/nn/footprint.hpp>
#include <static_attention/quant.hpp>
#include <static_attention/quant/footprint.hpp>

#include "quantize_gpt_models.hpp"
#include "quantize_models.hpp"

namespace sa = static_attention;
namespace qm = quant_models;
namespace qg = quant_gpt_models;

namespace {

// SysTick: reload 2^24 - 1, processor clock, no interrupt; counts down.
volatile std::uint32_t* const syst_csr = reinterpret_cast<volatile std::uint32_t*>(0xE000E010u);
volatile std::uint32_t* const syst_rvr = reinterpret_cast<volatile std::uint32_t*>(0xE000E014u);
volatile std::uint32_t* const syst_cvr = reinterpret_cast<volatile std::uint32_t*>(0xE000E018u);
constexpr std::uint32_t ticks_per_wrap = 1u << 24;
// 1 GHz icount: 40 instructions per tick of a 25 MHz SysTick (mps2-an385, an386, an500), 50 on
// mps2-an505, whose Cortex-M33 (CPUID part number 0xD21) runs at 20 MHz, 31.25 on mps3-an547,
// whose Cortex-M55 (0xD22) runs at 32 MHz.
// The processor clock in MHz, from the CPUID part number: 1000 / MHz instructions a tick.
std::uint32_t processor_mhz() {
  const std::uint32_t part = (*reinterpret_cast<volatile std::uint32_t*>(0xE000ED00u) >> 4) & 0xFFFu;
  return part == 0xD21u ? 20u : part == 0xD22u ? 32u : 25u;
}
std::uint32_t instructions(std::uint32_t ticks) {
  return static_cast<std::uint32_t>(std::uint64_t{ticks} * 1000u / processor_mhz());
}

std::uint32_t now() { return *syst_cvr; }
std::uint32_t ticks_since(std::uint32_t start) { return (start - now()) & (ticks_per_wrap - 1); }

// Stack painting: the region between the stack limit and a margin below the caller's frame.
extern "C" std::uint32_t __stack_limit[];
constexpr std::uint32_t paint = 0xA5A5A5A5u;
[[gnu::noinline]] std::uintptr_t paint_stack() {
  volatile std::uint32_t here = 0;
  auto* top = reinterpret_cast<std::uint32_t*>(reinterpret_cast<std::uintptr_t>(&here) - 64);
  for (std::uint32_t* p = __stack_limit; p < top; ++p) *p = paint;
  return reinterpret_cast<std::uintptr_t>(top);
}
std::size_t stack_used(std::uintptr_t top) {
  const std::uint32_t* p = __stack_limit;
  while (p < reinterpret_cast<const std::uint32_t*>(top) && *p == paint) ++p;
  return top - reinterpret_cast<std::uintptr_t>(p);
}

template <class Model, class X>
[[gnu::noinline]] auto forward(const Model& m, const X& x) {
  return m(x);
}

struct measured {
  std::uint32_t instructions;
  std::size_t stack;
};

// Instructions and stack of one call of forward(*model, *x), the result written to *out.
template <class Model, class X, class Y>
[[gnu::noinline]] measured measure(const Model* model, const X* x, Y* out) {
  const std::uintptr_t top = paint_stack();
  const std::uint32_t start = now();
  *out = forward(*model, *x);
  const std::uint32_t ticks = ticks_since(start);
  return {instructions(ticks), stack_used(top)};
}

template <class M>
bool same_bits(const M& a, const M& b) {
  return std::memcmp(a.elems, b.elems, sizeof a.elems) == 0;
}

constexpr auto x16 = qm::mha16_held_out[0];  // 8 x 16
constexpr auto int8_expected16 = qm::mha16_q(x16);
constexpr auto int8_expected_chapter = qm::chapter_q(qm::chapter_inputs);
constexpr auto gpt_ids = [] {  // the first held-out sequence
  std::array<int, 8> ids{};
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = qg::held_out.elems[i];
  return ids;
}();
constexpr auto int8_expected_gpt = qg::q(gpt_ids);

template <class F, class Q, class X, class E>
bool run(const char* name, const F& float_model, const Q& int8_model, const X& x, const E& expected, float bound) {
  const F* volatile fm = &float_model;
  const Q* volatile im = &int8_model;
  const X* volatile in = &x;
  E float_out{};
  E int8_out{};
  const measured f = measure(fm, in, &float_out);
  const measured q = measure(im, in, &int8_out);
  const bool bits = same_bits(int8_out, expected);
  const float err = sa::max_abs_diff(int8_out, float_out);
  std::printf("%s float: %lu instructions, %u bytes of stack, model %u bytes\n", name,
              static_cast<unsigned long>(f.instructions), static_cast<unsigned>(f.stack),
              static_cast<unsigned>(sizeof(F)));
  std::printf("%s int8:  %lu instructions, %u bytes of stack, model %u bytes\n", name,
              static_cast<unsigned long>(q.instructions), static_cast<unsigned>(q.stack),
              static_cast<unsigned>(sizeof(Q)));
  std::printf(
      "%s ratio: %.2fx fewer instructions, %.2fx fewer model bytes; max |int8 - float| = %.3e "
      "(bound %.1e); int8 bits %s the constant evaluator's\n",
      name, static_cast<double>(f.instructions) / static_cast<double>(q.instructions),
      static_cast<double>(sizeof(F)) / static_cast<double>(sizeof(Q)), static_cast<double>(err),
      static_cast<double>(bound), bits ? "are" : "are NOT");
  return bits && err <= bound;
}

// ---- The tiny GPT generating 16 tokens, with its KV cache and without ----
constexpr std::size_t new_tokens = 16;
constexpr std::array<int, 4> gen_prompt{5, 17, 42, 63};
using generated = std::array<int, gen_prompt.size() + new_tokens>;
constexpr generated int8_expected_ids = sa::generate_text_simple<new_tokens>(qg::q, gen_prompt);
constexpr generated float_expected_ids = sa::generate_text_simple<new_tokens>(qg::model, gen_prompt);
using int8_workspace = sa::quantized_gpt_workspace<qg::tiny, 8>;
using float_workspace = sa::gpt_workspace<float, qg::tiny, 8>;
constexpr sa::memory_plan int8_plan = sa::footprint<sa::quantized_gpt<qg::tiny>, int8_workspace>;
constexpr sa::memory_plan float_plan = sa::footprint<sa::gpt_model<float, qg::tiny>, float_workspace>;
static_assert(int8_plan.ram <= 64 * 1024, "the tiny int8 GPT's workspace and decode stack fit 64 KiB of RAM");
int8_workspace int8_ws;    // .bss
float_workspace float_ws;  // .bss

template <class Model, class Workspace>
struct cached_generation {
  const Model* model;
  Workspace* ws;
  generated* out;
  [[gnu::noinline]] void operator()() const {
    const auto r = sa::generate<new_tokens>(*model, gen_prompt, *ws);
    if (r) *out = *r;
  }
};
template <class Model>
struct recomputed_generation {
  const Model* model;
  generated* out;
  [[gnu::noinline]] void operator()() const { *out = sa::generate_text_simple<new_tokens>(*model, gen_prompt); }
};
// One decode step within the context: the id at position 7 after 7 cached ones, and the next id.
template <class Model, class Workspace>
struct one_step {
  const Model* model;
  Workspace* ws;
  int id;
  int* out;
  [[gnu::noinline]] void operator()() const {
    const auto h = model->hidden(std::array<int, 1>{id}, *ws);
    *out = h ? static_cast<int>(sa::detail::argmax(model->head(*h))) : -1;
  }
};

// The stack pointer where it is read.
[[gnu::always_inline]] inline std::uintptr_t stack_pointer() {
  std::uintptr_t sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

// Instructions and stack of f(): the stack counted from this frame's stack pointer at the call
// (the bytes below the paint's top are f's too), so that it is every byte f() took.
template <class F>
[[gnu::noinline]] measured measure_call(const F& f) {
  const std::uintptr_t top = paint_stack();
  const std::uintptr_t sp = stack_pointer();
  const std::uint32_t start = now();
  f();
  const std::uint32_t ticks = ticks_since(start);
  return {instructions(ticks), stack_used(top) + (sp - top)};
}

template <class Model, class Workspace>
bool run_generation(const char* name, const Model& model, Workspace& ws, const generated& expected,
                    const sa::memory_plan& plan) {
  generated cached{};
  generated recomputed{};
  const measured c = measure_call(cached_generation<Model, Workspace>{&model, &ws, &cached});
  const measured r = measure_call(recomputed_generation<Model>{&model, &recomputed});
  ws.clear();
  std::array<int, 7> seven{};
  for (std::size_t i = 0; i < seven.size(); ++i) seven[i] = expected[i];
  const bool prefilled = static_cast<bool>(model.prefill(seven, ws));
  int next = -1;
  const measured s = measure_call(one_step<Model, Workspace>{&model, &ws, expected[7], &next});
  const bool ids = prefilled && cached == expected && recomputed == expected && next == expected[8];
  // generate's result is the caller's (it is in cached_generation's frame): the plan bounds the
  // rest, and is at most 10% above it (issue #26: the plan >= what was used, and within 10%).
  const std::size_t used = c.stack - sizeof(sa::result<generated>);
  const bool stack = used <= plan.stack && plan.stack * 10 <= used * 11;
  std::printf("%s generate<16> cached: %lu instructions, %lu per token, %u bytes of stack\n", name,
              static_cast<unsigned long>(c.instructions), static_cast<unsigned long>(c.instructions / new_tokens),
              static_cast<unsigned>(c.stack));
  std::printf("%s generate_text_simple<16>: %lu instructions, %lu per token, %u bytes of stack\n", name,
              static_cast<unsigned long>(r.instructions), static_cast<unsigned long>(r.instructions / new_tokens),
              static_cast<unsigned>(r.stack));
  std::printf("%s one cached decode step (position 7): %lu instructions, %u bytes of stack\n", name,
              static_cast<unsigned long>(s.instructions), static_cast<unsigned>(s.stack));
  std::printf("%s stack plan %u, painted %u (generate<16> less its result), plan / painted %.3f\n", name,
              static_cast<unsigned>(plan.stack), static_cast<unsigned>(used),
              static_cast<double>(plan.stack) / static_cast<double>(used));
  std::printf(
      "%s footprint: flash %u (sizeof model %u), ram %u (workspace %u + stack bound %u; result %u); "
      "ids %s the constant evaluator's; stack %s within the bound and 10%% of it\n",
      name, static_cast<unsigned>(plan.flash), static_cast<unsigned>(sizeof(Model)), static_cast<unsigned>(plan.ram),
      static_cast<unsigned>(sizeof(Workspace)), static_cast<unsigned>(plan.stack),
      static_cast<unsigned>(sizeof(sa::result<generated>)), ids ? "are" : "are NOT", stack ? "is" : "is NOT");
  return ids && stack;
}

}  // namespace

int main() {
  *syst_rvr = ticks_per_wrap - 1;
  *syst_cvr = 0;
  *syst_csr = 0x5;  // enable, processor clock
  const bool a = run("mha16x4", qm::mha16, qm::mha16_q, x16, int8_expected16, 5.5e-3f);
  const bool b = run("chapter", qm::chapter_mha, qm::chapter_q, qm::chapter_inputs, int8_expected_chapter, 3.5e-3f);
  const bool c = run("tiny-gpt", qg::model, qg::q, gpt_ids, int8_expected_gpt, 0.032f);
  const bool g8 = run_generation("tiny-gpt int8 ", qg::q, int8_ws, int8_expected_ids, int8_plan);
  const bool gf = run_generation("tiny-gpt float", qg::model, float_ws, float_expected_ids, float_plan);
  const bool g = g8 && gf;
  std::printf("%s\n", a && b && c && g ? "ok" : "FAILED");
  return a && b && c && g ? 0 : 1;
}

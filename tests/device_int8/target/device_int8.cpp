// int8 against float on the device: the 16 -> 16 four-head attention of tests/quantize, the
// chapter's 3 -> 2 and the tiny GPT (logits of 8 ids), run on 8 tokens, float and int8, on a Cortex-M3 (no FPU: float
// in software) or a Cortex-M4F under QEMU with -icount shift=0 (one instruction per virtual nanosecond). It prints, per
// forward pass: instructions (SysTick at 25 MHz: one tick per 40 instructions), the deepest stack it used (a painted
// stack, measured), and the model's bytes; and it checks that the int8 outputs are the constant evaluator's, bit for
// bit, and within the error bound of tests/quantize. Exit status 0 when both hold.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <static_attention/elementwise.hpp>
#include <static_attention/quantize.hpp>

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
constexpr std::uint32_t instructions_per_tick = 40;  // 25 MHz SysTick, 1 GHz icount

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
  return {ticks * instructions_per_tick, stack_used(top)};
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

}  // namespace

int main() {
  *syst_rvr = ticks_per_wrap - 1;
  *syst_cvr = 0;
  *syst_csr = 0x5;  // enable, processor clock
  const bool a = run("mha16x4", qm::mha16, qm::mha16_q, x16, int8_expected16, 5.5e-3f);
  const bool b = run("chapter", qm::chapter_mha, qm::chapter_q, qm::chapter_inputs, int8_expected_chapter, 3.5e-3f);
  const bool c = run("tiny-gpt", qg::model, qg::q, gpt_ids, int8_expected_gpt, 0.032f);
  std::printf("%s\n", a && b && c ? "ok" : "FAILED");
  return a && b && c ? 0 : 1;
}

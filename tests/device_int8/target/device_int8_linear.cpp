// SPDX-License-Identifier: BSL-1.0
// The int8 linear layer alone on the device: quantized_linear<In, Out> of random int8 weights and
// int32 biases, 64 -> 64 and 256 -> 256, on one row (accumulate) and on 8 rows (accumulate_rows),
// run under QEMU with -icount shift=0. It prints the instructions per multiply-accumulate of the
// library's kernel (with the DSP extension: SMLAD, quant/detail/dsp_kernels.hpp) and of the
// portable C++ kernel (detail::dot_int, what the library ran before and runs without DSP), and
// checks that both give the constant evaluator's accumulators, bit for bit. Exit status 0 when
// they do.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <static_attention/quant.hpp>

namespace sa = static_attention;

namespace {

// SysTick: reload 2^24 - 1, processor clock, no interrupt; counts down. 1 GHz icount: 40
// instructions per tick of a 25 MHz SysTick (mps2-an385, an386, an500), 50 on mps2-an505, whose
// Cortex-M33 (CPUID part number 0xD21) runs at 20 MHz, 31.25 on mps3-an547, whose Cortex-M55
// (0xD22) runs at 32 MHz.
volatile std::uint32_t* const syst_csr = reinterpret_cast<volatile std::uint32_t*>(0xE000E010u);
volatile std::uint32_t* const syst_rvr = reinterpret_cast<volatile std::uint32_t*>(0xE000E014u);
volatile std::uint32_t* const syst_cvr = reinterpret_cast<volatile std::uint32_t*>(0xE000E018u);
constexpr std::uint32_t ticks_per_wrap = 1u << 24;
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

// A 32-bit LCG (Numerical Recipes), constexpr: the weights, biases and inputs.
struct lcg {
  std::uint32_t state;
  constexpr std::uint32_t next() noexcept {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
  constexpr std::int8_t code(std::int32_t lo, std::int32_t hi) noexcept {
    return static_cast<std::int8_t>(lo + static_cast<std::int32_t>(next() % static_cast<std::uint32_t>(hi - lo + 1)));
  }
};

template <std::size_t In, std::size_t Out>
constexpr sa::quantized_linear<In, Out> random_linear(std::uint32_t seed) {
  lcg g{seed};
  sa::quantized_linear<In, Out> q;
  for (auto& w : q.weight.elems) w = g.code(-127, 127);
  for (auto& b : q.bias.elems) b = static_cast<std::int32_t>(g.next() % 2000001u) - 1000000;
  return q;
}

template <std::size_t Rows, std::size_t In>
constexpr sa::matrix<std::int8_t, Rows, In> random_input(std::uint32_t seed) {
  lcg g{seed};
  sa::matrix<std::int8_t, Rows, In> x;
  for (auto& v : x.elems) v = g.code(-128, 127);
  return x;
}

constexpr std::size_t batch = 8;

template <std::size_t In, std::size_t Out>
struct layer {
  static constexpr sa::quantized_linear<In, Out> q = random_linear<In, Out>(In * 7919u + Out);
  static constexpr sa::matrix<std::int8_t, batch, In> x = random_input<batch, In>(In * 104729u + 1u);
  // The constant evaluator's accumulators (the portable kernel, in constant evaluation).
  static constexpr sa::matrix<std::int32_t, batch, Out> expected = [] {
    sa::matrix<std::int32_t, batch, Out> acc;
    for (std::size_t i = 0; i < batch; ++i) q.accumulate(x.elems + i * In, acc.elems + i * Out);
    return acc;
  }();
};

template <std::size_t In, std::size_t Out>
[[gnu::noinline]] void library_rows(const sa::quantized_linear<In, Out>& q, const std::int8_t* x, std::size_t rows,
                                    std::int32_t* acc) {
  if (rows == 1)
    q.accumulate(x, acc);
  else
    q.accumulate_rows(x, rows, acc);
}

// The portable kernel at run time (what accumulate is without the DSP extension).
template <std::size_t In, std::size_t Out>
[[gnu::noinline]] void portable_rows(const sa::quantized_linear<In, Out>& q, const std::int8_t* x, std::size_t rows,
                                     std::int32_t* acc) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < Out; ++j)
      acc[i * Out + j] = q.bias.elems[j] + sa::detail::dot_int<In>(x + i * In, q.weight.elems + j * In);
}

template <class F>
std::uint32_t count(F f) {
  const std::uint32_t start = now();
  f();
  return instructions(ticks_since(start));
}

template <std::size_t In, std::size_t Out>
bool run(std::size_t rows) {
  using L = layer<In, Out>;
  const sa::quantized_linear<In, Out>* volatile q = &L::q;
  const std::int8_t* volatile x = L::x.elems;
  static std::int32_t lib[batch * Out];
  static std::int32_t port[batch * Out];
  std::memset(lib, 0, sizeof lib);
  std::memset(port, 0, sizeof port);
  const std::uint32_t n_lib = count([&] { library_rows<In, Out>(*q, x, rows, lib); });
  const std::uint32_t n_port = count([&] { portable_rows<In, Out>(*q, x, rows, port); });
  const std::size_t macs = rows * In * Out;
  const bool same = std::memcmp(lib, L::expected.elems, rows * Out * sizeof(std::int32_t)) == 0 &&
                    std::memcmp(port, L::expected.elems, rows * Out * sizeof(std::int32_t)) == 0;
  std::printf("linear %u->%u batch %u: library %lu instructions (%.2f per MAC), portable %lu (%.2f per MAC); %s\n",
              static_cast<unsigned>(In), static_cast<unsigned>(Out), static_cast<unsigned>(rows),
              static_cast<unsigned long>(n_lib), static_cast<double>(n_lib) / static_cast<double>(macs),
              static_cast<unsigned long>(n_port), static_cast<double>(n_port) / static_cast<double>(macs),
              same ? "bits are the constant evaluator's" : "bits are NOT the constant evaluator's");
  return same;
}

}  // namespace

int main() {
  *syst_rvr = ticks_per_wrap - 1;
  *syst_cvr = 0;
  *syst_csr = 0x5;  // enable, processor clock
  bool ok = true;
  for (const std::size_t rows : {std::size_t{1}, batch}) {
    ok = run<64, 64>(rows) && ok;
    ok = run<256, 256>(rows) && ok;
  }
  ok = run<17, 5>(1) && run<17, 5>(batch) && run<18, 7>(3) && ok;  // tails: In % 4, Out % 4, odd rows
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

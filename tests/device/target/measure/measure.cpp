// SPDX-License-Identifier: BSL-1.0
// Instructions and stack of one forward pass of the measured model (measure_model.hpp), by the
// library and by the plain-C version; run with `qemu-run.sh --icount` (ports/cortex-m/measure.h).
// Prints the figures of docs/embedded.md, and fails unless both agree with torch (1e-5, as
// examples/embedded_attention.cpp) and the library's forward pass gives the constant evaluator's
// bits.
#include <bit>
#include <cstdint>
#include <cstdio>

#include "measure.h"
#include "measure_model.hpp"

namespace {

using measure::input_type;

struct figures {
  std::uint32_t instructions;  // per forward pass, the mean of `runs`
  std::size_t stack;           // bytes, by painting
};

constexpr unsigned runs = 32;

template <class Run>
[[gnu::noinline]] figures measure_one(Run run) {
  const std::uintptr_t top = sa_stack_paint();
  run();
  const std::size_t stack = sa_stack_used(top);
  sa_systick_start();
  const std::uint32_t before = sa_systick_now();
  for (unsigned r = 0; r < runs; ++r) run();
  const std::uint32_t instructions = sa_systick_instructions(before, sa_systick_now());
  return {instructions / runs, stack};
}

float max_abs_diff(const input_type& a, const input_type& b) {
  float worst = 0.0f;
  for (std::size_t k = 0; k < input_type::size; ++k) {
    const float d = a.elems[k] > b.elems[k] ? a.elems[k] - b.elems[k] : b.elems[k] - a.elems[k];
    worst = d > worst ? d : worst;
  }
  return worst;
}

}  // namespace

int main() {
  // Read through volatile pointers: nothing is folded into constants.
  const measure::model_type* volatile model = &measure::model;
  const input_type* volatile x = &device_weights::inputs;
  const float* volatile weights[5] = {device_weights::w_query.elems, device_weights::w_key.elems,
                                      device_weights::w_value.elems, device_weights::out_proj_weight.elems,
                                      device_weights::out_proj_bias.elems};
  input_type library{};
  input_type plain{};
  const figures lib = measure_one([&] { measure::library_forward(*model, *x, library); });
  const figures c = measure_one(
      [&] { plain_forward(x->elems, weights[0], weights[1], weights[2], weights[3], weights[4], plain.elems); });
  static constexpr input_type constant = measure::model(device_weights::inputs);
  unsigned differing = 0;
  for (std::size_t k = 0; k < input_type::size; ++k)
    differing += std::bit_cast<std::uint32_t>(library.elems[k]) != std::bit_cast<std::uint32_t>(constant.elems[k]);
  const float lib_error = max_abs_diff(library, device_weights::expected);
  const float c_error = max_abs_diff(plain, device_weights::expected);
  // Activations the forward pass cannot do without: queries, keys, values and the heads' context.
  constexpr std::size_t activations = 4 * sizeof(input_type);
  // (The report, not the measured code, goes through double: printf's %g takes one.)
  std::printf(
      "library: %lu instructions, %u bytes of stack; max |library - torch| = %.3g, "
      "%u values differ from the constant evaluator\n",
      static_cast<unsigned long>(lib.instructions), static_cast<unsigned>(lib.stack), static_cast<double>(lib_error),
      differing);
  std::printf("plain C: %lu instructions, %u bytes of stack; max |plain C - torch| = %.3g\n",
              static_cast<unsigned long>(c.instructions), static_cast<unsigned>(c.stack), static_cast<double>(c_error));
  std::printf("library / plain C: instructions %u %%, stack %u %%; activations (Q, K, V, context) %u bytes\n",
              static_cast<unsigned>(100ULL * lib.instructions / c.instructions),
              static_cast<unsigned>(100ULL * lib.stack / c.stack), static_cast<unsigned>(activations));
  std::printf("model: %u bytes (.rodata)\n", static_cast<unsigned>(sizeof(measure::model_type)));
  return differing == 0 && lib_error <= 1e-5f && c_error <= 1e-5f ? 0 : 1;
}

// SPDX-License-Identifier: BSL-1.0
// For the size figures of docs/embedded.md: size_forward.cpp plus printf (newlib's full printf,
// the default), printing the output's bits.
#include <bit>
#include <cstdint>
#include <cstdio>

#include "measure_model.hpp"

int main() {
  const measure::model_type* volatile model = &measure::model;
  const measure::input_type* volatile x = &device_weights::inputs;
  measure::input_type out;
  measure::library_forward(*model, *x, out);
  for (const float v : out.elems) std::printf("%08lx\n", static_cast<unsigned long>(std::bit_cast<std::uint32_t>(v)));
  return 0;
}

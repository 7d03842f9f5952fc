// SPDX-License-Identifier: BSL-1.0
// For the size figures of docs/embedded.md: the forward pass alone, without printf (the result is
// the exit status). Compare with size_empty.cpp (start-up code and C library only) and measure.cpp
// (with printf).
#include "measure_model.hpp"

int main() {
  const measure::model_type* volatile model = &measure::model;
  const measure::input_type* volatile x = &device_weights::inputs;
  measure::input_type out;
  measure::library_forward(*model, *x, out);
  return out.elems[0] > 0.0f ? 0 : 1;
}

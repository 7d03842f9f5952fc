// SPDX-License-Identifier: BSL-1.0
// The library's forward pass, out of line: its code is this object file's .text, the model is
// in measure_model.hpp (.rodata, wherever it is first used).
#include "measure_model.hpp"

namespace measure {

[[gnu::noinline]] void library_forward(const model_type& m, const input_type& x, input_type& out) noexcept {
  out = m(x);
}

}  // namespace measure

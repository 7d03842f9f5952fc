// SPDX-License-Identifier: BSL-1.0
// value() on an error must stop the program with the error's message, never return a matrix
// that looks loaded. CTest checks the message (see CMakeLists.txt).
#include <static_attention/io/npy.hpp>

int main() {
  const auto r = static_attention::load_npy<static_attention::matrix<float, 3, 2>>("no_such_weights.npy");
  return static_cast<int>(r.value()(0, 0));  // aborts
}

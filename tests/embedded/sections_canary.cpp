// SPDX-License-Identifier: BSL-1.0
// The canary of embedded.rodata: everything check_sections.cmake must refuse, in one object file
// (test embedded.rodata.canary expects a refusal naming each one).
#include <cstdio>

namespace canary {
int counter = 1;                                    // .data: mutable global state
float scratch[16];                                  // .bss: mutable global state
const float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};  // .rodata: accepted
struct started {
  started() { std::puts("static initialiser"); }  // runs before main: .init_array
};
const started at_start_up;
}  // namespace canary

int main() {
  int* volatile p = new int{canary::counter};  // operator new: refused as an external symbol
  canary::scratch[0] = canary::weights[static_cast<unsigned>(*p) % 4];
  return static_cast<int>(canary::scratch[0]);
}

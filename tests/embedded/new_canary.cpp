// SPDX-License-Identifier: BSL-1.0
// The harness's canary: linked with abort_on_new.cpp, this program allocates once, so it must
// end with abort_on_new's message (test embedded.no_heap.canary); if it did not, the replacement
// operator new would not be in effect and embedded.no_heap would prove nothing.
#include <cstdio>

int* volatile escaped = nullptr;

int main() {
  escaped = new int{1};  // a volatile store: the new-expression cannot be elided
  std::puts("allocated without operator new noticing");
  return 0;
}

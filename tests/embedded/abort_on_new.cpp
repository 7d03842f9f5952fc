// SPDX-License-Identifier: BSL-1.0
// Linked into a copy of examples/embedded_attention (see CMakeLists.txt): every global operator
// new reports the call and ends the program with status 86, so the copy passes only if nothing
// in it (the model, the forward pass, printf's C++ side) allocates through operator new. Built
// with -fno-exceptions like the example, so these never throw.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>

namespace {
[[noreturn]] void heap_used(const char* which) {
  std::fprintf(stderr, "operator new called (%s): the embedded model must allocate nothing\n", which);
  std::_Exit(86);
}
}  // namespace

void* operator new(std::size_t) { heap_used("operator new"); }
void* operator new[](std::size_t) { heap_used("operator new[]"); }
void* operator new(std::size_t, std::align_val_t) { heap_used("aligned operator new"); }
void* operator new[](std::size_t, std::align_val_t) { heap_used("aligned operator new[]"); }
void* operator new(std::size_t, const std::nothrow_t&) noexcept { heap_used("nothrow operator new"); }
void* operator new[](std::size_t, const std::nothrow_t&) noexcept { heap_used("nothrow operator new[]"); }
void* operator new(std::size_t, std::align_val_t, const std::nothrow_t&) noexcept {
  heap_used("aligned nothrow operator new");
}
void* operator new[](std::size_t, std::align_val_t, const std::nothrow_t&) noexcept {
  heap_used("aligned nothrow operator new[]");
}
// Nothing is allocated, so nothing is freed: any delete is a bug as well.
void operator delete(void*) noexcept { heap_used("operator delete"); }
void operator delete[](void*) noexcept { heap_used("operator delete[]"); }
void operator delete(void*, std::size_t) noexcept { heap_used("sized operator delete"); }
void operator delete[](void*, std::size_t) noexcept { heap_used("sized operator delete[]"); }
void operator delete(void*, std::align_val_t) noexcept { heap_used("aligned operator delete"); }
void operator delete[](void*, std::align_val_t) noexcept { heap_used("aligned operator delete[]"); }
void operator delete(void*, std::size_t, std::align_val_t) noexcept { heap_used("sized aligned operator delete"); }
void operator delete[](void*, std::size_t, std::align_val_t) noexcept { heap_used("sized aligned operator delete[]"); }

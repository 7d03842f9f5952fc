// SPDX-License-Identifier: BSL-1.0
// Run-time truth: forward passes of self_attention, causal_attention and multi_head_attention,
// on a sequence and on a batch, in evaluation and training mode, make no heap allocation.
// Every global operator new is replaced by a counting one; the count is taken only while a
// forward pass runs, so doctest's own allocations do not matter.
#include <cstddef>
#include <cstdlib>
#include <new>

#include <static_attention/core/random.hpp>
#include <static_attention/static_attention.hpp>

#include <doctest/doctest.h>

namespace {
bool counting = false;
std::size_t allocations = 0;

void* counted(std::size_t size, std::size_t align) {
  if (counting) ++allocations;
  if (size == 0) size = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (size + align - 1) / align * align)
                                              : std::malloc(size);
  return p;
}
void* counted_or_throw(std::size_t size, std::size_t align) {
  void* p = counted(size, align);
  if (p == nullptr) throw std::bad_alloc{};
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return counted_or_throw(n, 0); }
void* operator new[](std::size_t n) { return counted_or_throw(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_or_throw(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {
namespace sa = static_attention;

int* volatile escaped = nullptr;

// Heap allocations made by f(); the result is kept alive (and observable) through sink.
template <class F>
std::size_t allocations_in(F f) {
  allocations = 0;
  counting = true;
  auto result = f();
  counting = false;
  volatile auto first = result.elems[0];
  (void)first;
  return allocations;
}

// Weights and inputs drawn at run time, so every forward pass below runs at run time.
template <class T, std::size_t R, std::size_t C>
sa::matrix<T, R, C> draw(sa::torch_generator& gen) {
  return sa::uniform<T, R, C>(gen, T{-1}, T{1});
}
template <class T, std::size_t B, std::size_t N, std::size_t D>
sa::tensor<T, B, N, D> draw_batch(sa::torch_generator& gen) {
  return sa::uniform<T, B, N, D>(gen, T{-1}, T{1});
}

template <class T, std::size_t N, std::size_t d_in, std::size_t d_out, std::size_t heads>
void check_all_modules() {
  sa::torch_generator gen{123};
  const auto x = draw<T, N, d_in>(gen);
  const auto batch = draw_batch<T, 2, N, d_in>(gen);
  const sa::self_attention<T, d_in, d_out> self{draw<T, d_in, d_out>(gen), draw<T, d_in, d_out>(gen),
                                                draw<T, d_in, d_out>(gen)};
  const sa::causal_attention<T, d_in, d_out> causal{draw<T, d_in, d_out>(gen), draw<T, d_in, d_out>(gen),
                                                    draw<T, d_in, d_out>(gen), T{0.5}};
  const sa::multi_head_attention<T, d_in, d_out, heads> mha{draw<T, d_in, d_out>(gen), draw<T, d_in, d_out>(gen),
                                                            draw<T, d_in, d_out>(gen), draw<T, d_out, d_out>(gen),
                                                            draw<T, 1, d_out>(gen),    T{0.5}};
  sa::torch_generator dropout_gen{7};

  CHECK(allocations_in([&] { return self(x); }) == 0);
  CHECK(allocations_in([&] { return self(batch); }) == 0);
  CHECK(allocations_in([&] { return self.attention_weights(x); }) == 0);
  CHECK(allocations_in([&] { return causal(x); }) == 0);
  CHECK(allocations_in([&] { return causal(batch); }) == 0);
  CHECK(allocations_in([&] { return causal(x, dropout_gen); }) == 0);
  CHECK(allocations_in([&] { return causal(batch, dropout_gen); }) == 0);
  CHECK(allocations_in([&] { return mha(x); }) == 0);
  CHECK(allocations_in([&] { return mha(batch); }) == 0);
  CHECK(allocations_in([&] { return mha(x, dropout_gen); }) == 0);
  CHECK(allocations_in([&] { return mha(batch, dropout_gen); }) == 0);
  CHECK(allocations_in([&] { return mha.attention_weights(x); }) == 0);
}
}  // namespace

TEST_CASE("the counting operator new sees an allocation (sanity check of the harness)") {
  CHECK(allocations_in([] {
          int* p = new int{1};
          escaped = p;  // a volatile store: the new-expression cannot be elided
          const int v = *p;
          delete p;
          return sa::matrix<int, 1, 1>{{v}};
        }) == 1);
}

TEST_CASE("forward passes allocate nothing: the chapter's shapes (6 x 3 -> 2, 2 heads)") {
  check_all_modules<float, 6, 3, 2, 2>();
  check_all_modules<double, 6, 3, 2, 2>();
}

TEST_CASE("forward passes allocate nothing: 32 x 64 -> 64, 8 heads") {
  check_all_modules<float, 32, 64, 64, 8>();
  check_all_modules<double, 32, 64, 64, 8>();
}

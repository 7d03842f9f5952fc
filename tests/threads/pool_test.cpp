// SPDX-License-Identifier: BSL-1.0
// Run-time truth about thread_pool itself: run() calls every thread index once per call; a
// generation with a pool makes no heap allocation (every global operator new is replaced by a
// counting one, counted only while generating); an idle pool sleeps (its CPU time over 1 s of
// idleness, from getrusage, is under 10% of a core).
#include <sys/resource.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <thread>

#include <static_attention/core/random.hpp>
#include <static_attention/nn/gpt.hpp>
#include <static_attention/nn/sampling.hpp>
#include <static_attention/nn/thread_pool.hpp>

#include <doctest/doctest.h>

namespace {
std::atomic<bool> counting{false};
std::atomic<std::size_t> allocations{0};

void* counted(std::size_t size, std::size_t align) {
  if (counting.load()) ++allocations;
  if (size == 0) size = 1;
  return align > alignof(std::max_align_t) ? std::aligned_alloc(align, (size + align - 1) / align * align)
                                           : std::malloc(size);
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
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace sa = static_attention;

namespace {
inline constexpr sa::gpt_config small{97, 64, 64, 4, 2, false};
using model_t = sa::gpt_model<float, small>;

// Adds one to the slot of each thread index it is called with.
struct count_calls {
  std::array<std::atomic<int>, 8>* calls;
  void operator()(std::size_t i) const noexcept { ++(*calls)[i]; }
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
}  // namespace

TEST_CASE("thread_pool: run() calls each thread index once per call") {
  for (std::size_t threads : {1u, 2u, 3u, 5u}) {
    sa::thread_pool pool(threads);
    CHECK(pool.size() == threads);
    std::array<std::atomic<int>, 8> calls{};
    for (int r = 0; r < 2000; ++r) pool.run(count_calls{&calls});
    for (std::size_t i = 0; i < calls.size(); ++i) CHECK(calls[i].load() == (i < threads ? 2000 : 0));
  }
  CHECK(sa::thread_pool(0).size() == 1);
}

TEST_CASE("thread_pool: generating with a pool allocates nothing") {
  static model_t m;
  static sa::gpt_workspace<float, small, 64> ws;
  sa::torch_generator init{123};
  sa::init_like_torch(m, init);
  sa::thread_pool pool(3);
  const std::array<int, 5> prompt{1, 2, 3, 4, 5};
  allocations = 0;
  counting = true;
  const auto greedy = sa::generate<40>(m, prompt, ws, pool);
  sa::torch_generator gen{123};
  const auto sampled = sa::generate<40>(m, prompt, ws, sa::sampling{1.0, 10, std::nullopt}, gen, pool);
  counting = false;
  CHECK(greedy);
  CHECK(sampled.length == 45);
  CHECK(allocations.load() == 0);
}

TEST_CASE("thread_pool: an idle pool sleeps (under 10% of a core over 1 s)") {
  sa::thread_pool pool(3);
  std::array<std::atomic<int>, 8> calls{};
  pool.run(count_calls{&calls});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past the spin
  const double before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const double used = cpu_seconds() - before;
  MESSAGE("idle pool of 3 threads: ", used, " s of CPU over 1 s");
  CHECK(used < 0.1);
}

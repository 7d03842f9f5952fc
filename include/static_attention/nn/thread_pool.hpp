// SPDX-License-Identifier: BSL-1.0
// A caller-owned pool of threads for the GPT's forward pass (hosted builds only: not part of
// the freestanding umbrella header). Work is split statically by thread index, each output
// element computed by one thread in a fixed order, so results are bit-identical for every
// thread count. Idle threads spin briefly, then sleep on a condition variable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>

#include <static_attention/core/matmul.hpp>
#include <static_attention/core/matrix.hpp>
#include <static_attention/nn/detail/parallel_policy.hpp>

namespace static_attention {

/// Threads that run the work of one call together: `thread_pool(n)` runs it on n threads in all,
/// the calling thread included (ggml's `-t n`); n = 0 counts as 1. The threads are created once,
/// here, and joined by the destructor; between calls they sleep. Pass it by reference, as the
/// last argument, to the calls that take one; it is not copyable and serves one caller at a time.
class thread_pool {
 public:
  /// A pool of `threads` threads in all (the caller one of them): threads - 1 are started.
  explicit thread_pool(std::size_t threads) : count_(threads == 0 ? 1 : threads) {
    if (count_ > 1) workers_ = new std::thread[count_ - 1];
    for (std::size_t i = 1; i < count_; ++i) workers_[i - 1] = std::thread(worker_loop{this, i});
  }
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;
  /// Wakes and joins every thread.
  ~thread_pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::size_t i = 1; i < count_; ++i) workers_[i - 1].join();
    delete[] workers_;
  }

  /// Threads in all, the caller included.
  std::size_t size() const noexcept { return count_; }

  /// Calls task(i) once for each i in [0, size()), i = 0 on the calling thread, and returns
  /// when every call has returned. No allocation; the task is not copied.
  template <class Task>
  void run(const Task& task) noexcept {
    if (count_ == 1) {
      task(std::size_t{0});
      return;
    }
    job_ = &call<Task>;
    context_ = &task;
    pending_.store(count_ - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    if (sleepers_.load(std::memory_order_acquire) > 0) wake_.notify_all();
    task(std::size_t{0});
    wait_done();
  }

 private:
  template <class Task>
  static void call(const void* context, std::size_t index) noexcept {
    (*static_cast<const Task*>(context))(index);
  }

  // Checks before sleeping: `spins` with a pause between (about the gap between two products of
  // one token), then `yields` giving the core away (a thread waiting for a core, with more
  // threads than free cores, runs meanwhile), then a condition variable.
  static constexpr int spins = 2000;
  static constexpr int yields = 64;

  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  void wait_done() noexcept {
    for (int s = 0; s < spins + yields; ++s) {
      if (pending_.load(std::memory_order_acquire) == 0) return;
      if (s < spins)
        pause();
      else
        std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    caller_waiting_ = true;
    done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    caller_waiting_ = false;
  }

  // One worker: wait for a generation it has not run, run its share, report.
  struct worker_loop {
    thread_pool* pool;
    std::size_t index;
    void operator()() const noexcept {
      std::uint64_t seen = 0;
      for (;;) {
        if (!pool->await(seen)) return;
        pool->job_(pool->context_, index);
        if (pool->pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          std::lock_guard<std::mutex> lock(pool->mutex_);
          if (pool->caller_waiting_) pool->done_.notify_one();
        }
      }
    }
  };

  // Waits until the generation moves past seen (updating it); false when stopping.
  bool await(std::uint64_t& seen) noexcept {
    for (int s = 0; s < spins + yields; ++s) {
      const std::uint64_t g = generation_.load(std::memory_order_acquire);
      if (g != seen) {
        seen = g;
        return true;
      }
      if (s < spins)
        pause();
      else
        std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    sleepers_.fetch_add(1, std::memory_order_acq_rel);
    wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_acquire) != seen; });
    sleepers_.fetch_sub(1, std::memory_order_acq_rel);
    if (stop_) return false;
    seen = generation_.load(std::memory_order_acquire);
    return true;
  }

  std::size_t count_;
  std::thread* workers_ = nullptr;  // count_ - 1 of them (no <memory>: see tests/freestanding)
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::size_t> pending_{0};
  std::atomic<int> sleepers_{0};
  bool stop_ = false;
  bool caller_waiting_ = false;
  void (*job_)(const void*, std::size_t) = nullptr;
  const void* context_ = nullptr;
};

/// The matrix product into out as matmul_into(out, a, b) computes it, bit for bit, with out's
/// columns split between the pool's threads (each element summed by one thread, in order).
template <class T, std::size_t R, std::size_t K, std::size_t K2, std::size_t C>
void matmul_into(matrix<T, R, C>& out, const matrix<T, R, K>& a, const matrix<T, K2, C>& b,
                 thread_pool& pool) noexcept {
  detail::check_matmul_shapes<R, K, K2, C>();
  if constexpr (K == K2) detail::parallel<thread_pool>{&pool}.template matmul<T, R, K, C>(a.elems, b.elems, out.elems);
}

}  // namespace static_attention

// SPDX-License-Identifier: BSL-1.0
// A caller-owned pool of threads for the GPT's forward pass (hosted builds only: not part of
// the freestanding umbrella header). Work is cut into chunks that the threads claim in turn,
// each output element computed by one thread in a fixed order, so results are bit-identical for
// every thread count; a thread whose core is taken holds up one chunk, not a fixed share. Idle
// threads spin briefly, yield, then sleep on a condition variable.
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
    for (std::size_t i = 1; i < count_; ++i) workers_[i - 1] = std::thread(worker_loop{this});
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

  /// Calls task(c) once for each chunk c in [0, chunks), the threads (the caller one of them)
  /// claiming chunks in turn, and returns when every chunk has run. The call waits for chunks,
  /// not for threads: a thread descheduled by another process (more threads than free cores)
  /// delays at most the one chunk it has claimed, and one that wakes late finds nothing left.
  /// No allocation; the task is not copied.
  template <class Task>
  void run_chunks(const Task& task, std::size_t chunks) noexcept {
    if (chunks == 0) return;
    if (count_ == 1 || chunks == 1) {
      for (std::size_t c = 0; c < chunks; ++c) task(c);
      return;
    }
    const std::uint64_t g = (state_.load(std::memory_order_relaxed) >> 32) + 1;
    slot& s = slots_[g & 1];  // slot g & 1 was last used by run g - 2, long done
    s.job.store(&call<Task>, std::memory_order_relaxed);
    s.context.store(&task, std::memory_order_relaxed);
    s.chunks.store(chunks, std::memory_order_relaxed);
    s.done.store(0, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);  // a worker about to sleep sees it, or is woken
      state_.store(g << 32, std::memory_order_release);
    }
    if (sleepers_.load(std::memory_order_acquire) > 0) wake_.notify_all();
    claim_all(g);
    wait_done(s, chunks);
  }

  /// Calls task(i) once for each i in [0, size()) (run_chunks with size() chunks), and returns
  /// when every call has returned.
  template <class Task>
  void run(const Task& task) noexcept {
    run_chunks(task, count_);
  }

 private:
  template <class Task>
  static void call(const void* context, std::size_t chunk) noexcept {
    (*static_cast<const Task*>(context))(chunk);
  }

  // One run's job, in one of two slots by the parity of its generation: a worker that read a
  // slot for run g claims from it only while the state still says g, and run g + 2, the next to
  // write that slot, starts only after every chunk of run g is done.
  struct slot {
    std::atomic<void (*)(const void*, std::size_t)> job{nullptr};
    std::atomic<const void*> context{nullptr};
    std::atomic<std::size_t> chunks{0};
    std::atomic<std::size_t> done{0};
  };

  // Claims and runs chunks of run g until none is left (or the state has moved past g).
  void claim_all(std::uint64_t g) noexcept {
    slot& s = slots_[g & 1];
    void (*const job)(const void*, std::size_t) = s.job.load(std::memory_order_relaxed);
    const void* const context = s.context.load(std::memory_order_relaxed);
    const std::size_t chunks = s.chunks.load(std::memory_order_relaxed);
    std::uint64_t now = state_.load(std::memory_order_acquire);
    for (;;) {
      if ((now >> 32) != g || (now & 0xFFFFFFFFu) >= chunks) return;
      if (!state_.compare_exchange_weak(now, now + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      job(context, static_cast<std::size_t>(now & 0xFFFFFFFFu));
      if (s.done.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (caller_waiting_) done_cv_.notify_one();
      }
      now = state_.load(std::memory_order_acquire);
    }
  }

  // Checks before sleeping: `spins` with a pause between (about the gap between two products of
  // one token), then `yields` giving the core away, then a condition variable.
  static constexpr int spins = 2000;
  static constexpr int yields = 64;

  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  void wait_done(slot& s, std::size_t chunks) noexcept {
    for (int k = 0; k < spins + yields; ++k) {
      if (s.done.load(std::memory_order_acquire) == chunks) return;
      if (k < spins)
        pause();
      else
        std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    caller_waiting_ = true;
    done_cv_.wait(lock, [&] { return s.done.load(std::memory_order_acquire) == chunks; });
    caller_waiting_ = false;
  }

  // One worker: wait for a run it has not seen, claim chunks of it, repeat.
  struct worker_loop {
    thread_pool* pool;
    void operator()() const noexcept {
      std::uint64_t seen = 0;
      while (pool->await(seen)) pool->claim_all(seen);
    }
  };

  // Waits until the generation moves past seen (updating it); false when stopping.
  bool await(std::uint64_t& seen) noexcept {
    for (int k = 0; k < spins + yields; ++k) {
      const std::uint64_t g = state_.load(std::memory_order_acquire) >> 32;
      if (g != seen) {
        seen = g;
        return true;
      }
      if (k < spins)
        pause();
      else
        std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    sleepers_.fetch_add(1, std::memory_order_acq_rel);
    wake_.wait(lock, [&] { return stop_ || (state_.load(std::memory_order_acquire) >> 32) != seen; });
    sleepers_.fetch_sub(1, std::memory_order_acq_rel);
    if (stop_) return false;
    seen = state_.load(std::memory_order_acquire) >> 32;
    return true;
  }

  std::size_t count_;
  std::thread* workers_ = nullptr;  // count_ - 1 of them (no <memory>: see tests/freestanding)
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_cv_;
  // The run's generation (high 32 bits) and its next unclaimed chunk (low 32 bits).
  std::atomic<std::uint64_t> state_{0};
  std::atomic<int> sleepers_{0};
  slot slots_[2];
  bool stop_ = false;
  bool caller_waiting_ = false;
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

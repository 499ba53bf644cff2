// The process-wide pool behind parallel_for. One call at a time owns the pool: it offers "tickets" to
// sleeping helpers, runs chunks itself as slot 0, then withdraws the unclaimed tickets and waits for the
// helpers that joined. A caller that finds the pool owned (another session's call, or a nested call from
// inside a chunk) runs every chunk itself: chunk contents never depend on who runs them, so the results are
// the same.
//
// Chunk functions must not throw: a kernel chunk only computes into preallocated memory.
#include "threading/parallel_for.h"

#include <algorithm>
#include <cstdlib>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ONEMODEL_SINGLE_THREADED 1
#else
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#endif

namespace onemodel {
namespace {

// kernels-gemm.md: at most one helper per this much estimated single-thread work.
constexpr double kWorkNsPerHelper = 80000.0;

void run_on_caller(int64_t chunks, const SlotChunkFn& fn) {
  for (int64_t c = 0; c < chunks; ++c) fn(c, 0);
}

#if !defined(ONEMODEL_SINGLE_THREADED)

// ONEMODEL_THREADS as a positive decimal count, or 0 when unset or not a positive number.
int thread_cap_from_env() {
  const char* text = std::getenv("ONEMODEL_THREADS");
  if (text == nullptr || *text == '\0') return 0;
  long value = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return 0;
    value = value * 10 + (*p - '0');
    if (value > 1 << 20) return 1 << 20;
  }
  return static_cast<int>(value);
}

int detect_hardware_threads() {
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads < 1) threads = 1;
  const int cap = thread_cap_from_env();
  if (cap > 0) threads = std::min(threads, cap);
  return threads;
}

class Pool {
 public:
  explicit Pool(int max_helpers) : max_helpers_(max_helpers) {}

  // Runs every chunk with up to `helpers` helper threads; false (nothing run) when another call owns the
  // pool.
  bool try_run(int64_t chunks, const SlotChunkFn& fn, int helpers) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      start_helpers_locked();
      fn_ = &fn;
      chunks_ = chunks;
      next_chunk_.store(0, std::memory_order_relaxed);
      tickets_ = std::min(helpers, started_);
      next_slot_ = 1;
    }
    for (int i = 0; i < helpers; ++i) wake_.notify_one();
    run_chunks(fn, chunks);
    {
      std::unique_lock<std::mutex> lock(mu_);
      tickets_ = 0;  // helpers that have not woken yet must not join a finished call
      done_.wait(lock, [this] { return active_ == 0; });
      fn_ = nullptr;
    }
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  void run_chunks(const SlotChunkFn& fn, int64_t chunks, int slot = 0) {
    for (;;) {
      const int64_t chunk = next_chunk_.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= chunks) return;
      fn(chunk, slot);
    }
  }

  // Threads start on the first call that wants them and live as long as the process (the pool is never
  // destroyed, so no destructor has to join sleeping threads at exit).
  void start_helpers_locked() {
    if (started_ == max_helpers_ || start_failed_) return;
    try {
      while (started_ < max_helpers_) {
        std::thread(&Pool::helper_loop, this).detach();
        ++started_;
      }
    } catch (...) {
      start_failed_ = true;  // keep the helpers that did start
    }
  }

  void helper_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [this] { return tickets_ > 0; });
      --tickets_;
      ++active_;
      const int slot = next_slot_++;
      const SlotChunkFn* fn = fn_;
      const int64_t chunks = chunks_;
      lock.unlock();
      run_chunks(*fn, chunks, slot);
      lock.lock();
      if (--active_ == 0) done_.notify_one();
    }
  }

  const int max_helpers_;
  std::atomic<bool> busy_{false};
  std::atomic<int64_t> next_chunk_{0};
  std::mutex mu_;
  std::condition_variable wake_;  // a ticket was offered
  std::condition_variable done_;  // the last joined helper finished
  // Guarded by mu_.
  int started_ = 0;
  bool start_failed_ = false;
  const SlotChunkFn* fn_ = nullptr;
  int64_t chunks_ = 0;
  int tickets_ = 0;
  int next_slot_ = 1;
  int active_ = 0;
};

Pool& pool() {
  static Pool* const instance = new Pool(hardware_threads() - 1);
  return *instance;
}

#endif  // !ONEMODEL_SINGLE_THREADED

}  // namespace

int hardware_threads() {
#if defined(ONEMODEL_SINGLE_THREADED)
  return 1;
#else
  static const int threads = detect_hardware_threads();
  return threads;
#endif
}

int thread_slots(const ThreadContext& ctx) {
  return std::clamp(ctx.max_threads, 1, hardware_threads());
}

void parallel_for_slots(const ThreadContext& ctx, int64_t chunks, SlotChunkFn fn, double work_ns) {
  if (chunks <= 0) return;
#if !defined(ONEMODEL_SINGLE_THREADED)
  int64_t helpers = std::min<int64_t>(thread_slots(ctx) - 1, chunks - 1);
  // The negated comparison also sends NaN estimates to the caller alone.
  if (!(work_ns >= kWorkNsPerHelper))
    helpers = 0;
  else if (work_ns < kWorkNsPerHelper * static_cast<double>(helpers))
    helpers = static_cast<int64_t>(work_ns / kWorkNsPerHelper);
  if (helpers > 0 && pool().try_run(chunks, fn, static_cast<int>(helpers))) return;
#endif
  run_on_caller(chunks, fn);
}

void parallel_for(const ThreadContext& ctx, int64_t chunks, ChunkFn fn, double work_ns) {
  const auto body = [&fn](int64_t chunk, int) { fn(chunk); };
  parallel_for_slots(ctx, chunks, body, work_ns);
}

}  // namespace onemodel

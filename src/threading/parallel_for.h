// Fixed-chunk parallel-for (kernels-gemm.md "Fixed chunks and thread independence"): chunk indices are handed out
// through one atomic counter; the number of threads decides who runs a chunk, never what it computes.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace onemodel {

// Non-owning reference to a callable `void(int64_t chunk)`; never allocates.
class ChunkFn {
 public:
  template <class F>
  ChunkFn(const F& f) : obj_(&f), call_([](const void* o, int64_t c) { (*static_cast<const F*>(o))(c); }) {}
  void operator()(int64_t chunk) const { call_(obj_, chunk); }

 private:
  const void* obj_;
  void (*call_)(const void*, int64_t);
};

// Non-owning reference to a callable `void(int64_t chunk, int slot)`; never allocates. `slot` names the
// thread running the chunk within one call (see parallel_for_slots), so a kernel can give each thread its own
// scratch.
class SlotChunkFn {
 public:
  template <class F>
  SlotChunkFn(const F& f)
      : obj_(&f), call_([](const void* o, int64_t c, int s) { (*static_cast<const F*>(o))(c, s); }) {}
  void operator()(int64_t chunk, int slot) const { call_(obj_, chunk, slot); }

 private:
  const void* obj_;
  void (*call_)(const void*, int64_t, int);
};

// How many threads (caller included) a session lets one kernel call use.
struct ThreadContext {
  int max_threads = 1;
};

// Runs fn(0..chunks-1), each exactly once. `work_ns` is the estimated single-thread time of the whole call: the pool
// wakes at most one helper per 80 000 ns of it. Allocates nothing.
void parallel_for(const ThreadContext& ctx, int64_t chunks, ChunkFn fn, double work_ns);

// As parallel_for, and tells each call of fn which thread runs it: slot is in [0, thread_slots(ctx)) and no
// two chunks run at the same time with the same slot within one call (the caller is slot 0).
void parallel_for_slots(const ThreadContext& ctx, int64_t chunks, SlotChunkFn fn, double work_ns);

// Distinct slots parallel_for_slots may pass for ctx: max_threads clamped to [1, hardware_threads()].
int thread_slots(const ThreadContext& ctx);

// Threads in the process-wide pool plus the caller: logical cores capped by ONEMODEL_THREADS (at least 1).
int hardware_threads();

}  // namespace onemodel

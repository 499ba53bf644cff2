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

// How many threads (caller included) a session lets one kernel call use.
struct ThreadContext {
  int max_threads = 1;
};

// Runs fn(0..chunks-1), each exactly once. `work_ns` is the estimated single-thread time of the whole call: the pool
// wakes at most one helper per 80 000 ns of it. Allocates nothing.
void parallel_for(const ThreadContext& ctx, int64_t chunks, ChunkFn fn, double work_ns);

// Threads in the process-wide pool plus the caller: logical cores capped by ONEMODEL_THREADS (at least 1).
int hardware_threads();

}  // namespace onemodel

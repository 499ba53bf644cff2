// The fixed-chunk parallel-for: each chunk exactly once, slots never shared by running chunks, the work
// threshold, concurrent and nested callers, and no allocation per call.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <new>
#include <set>
#include <thread>
#include <vector>

#include "support/allocation_counter.h"
#include "threading/parallel_for.h"

namespace onemodel {
namespace {

constexpr double kLotsOfWork = 1e9;  // enough to wake every helper

ThreadContext all_threads() {
  return ThreadContext{hardware_threads()};
}

TEST(ParallelFor, RunsEveryChunkExactlyOnce) {
  for (int64_t chunks : {1, 2, 7, 1000}) {
    for (double work : {0.0, 1e5, kLotsOfWork}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(chunks));
      const auto body = [&](int64_t c) { runs[static_cast<size_t>(c)].fetch_add(1); };
      parallel_for(all_threads(), chunks, body, work);
      for (int64_t c = 0; c < chunks; ++c) EXPECT_EQ(runs[c].load(), 1) << "chunk " << c << " of " << chunks;
    }
  }
}

TEST(ParallelFor, NoChunksMeansNoCalls) {
  int calls = 0;
  const auto body = [&](int64_t) { ++calls; };
  parallel_for(all_threads(), 0, body, kLotsOfWork);
  parallel_for(all_threads(), -5, body, kLotsOfWork);
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, SmallWorkAndSingleThreadContextsStayOnTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  const auto body = [&](int64_t) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  parallel_for(all_threads(), 50, body, 79999.0);  // below one helper's worth of work
  parallel_for(ThreadContext{1}, 50, body, kLotsOfWork);
  parallel_for(ThreadContext{0}, 50, body, kLotsOfWork);
  EXPECT_EQ(elsewhere.load(), 0);
}

TEST(ParallelFor, LargeWorkUsesHelpers) {
  if (hardware_threads() < 2) GTEST_SKIP() << "one hardware thread";
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  const auto body = [&](int64_t) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  parallel_for(all_threads(), 100, body, kLotsOfWork);
  EXPECT_GT(elsewhere.load(), 0);
}

TEST(ParallelFor, SlotsAreInRangeAndNeverSharedByRunningChunks) {
  const ThreadContext ctx = all_threads();
  const int slots = thread_slots(ctx);
  std::vector<std::atomic<bool>> busy(static_cast<size_t>(slots));
  std::atomic<int> bad{0};
  const auto body = [&](int64_t, int slot) {
    if (slot < 0 || slot >= slots) {
      bad.fetch_add(1);
      return;
    }
    if (busy[slot].exchange(true)) bad.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    busy[slot].store(false);
  };
  parallel_for_slots(ctx, 200, body, kLotsOfWork);
  EXPECT_EQ(bad.load(), 0);
}

TEST(ParallelFor, ThreadSlotsClampToTheHardware) {
  EXPECT_GE(hardware_threads(), 1);
  EXPECT_EQ(thread_slots(ThreadContext{0}), 1);
  EXPECT_EQ(thread_slots(ThreadContext{-3}), 1);
  EXPECT_EQ(thread_slots(ThreadContext{1}), 1);
  EXPECT_EQ(thread_slots(ThreadContext{1 << 20}), hardware_threads());
}

TEST(ParallelFor, ConcurrentAndNestedCallersGetEveryChunk) {
  constexpr int kCallers = 4;
  constexpr int64_t kOuter = 40, kInner = 25;
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> runs(static_cast<size_t>(kOuter * kInner));
        const auto outer = [&](int64_t o) {
          const auto inner = [&](int64_t i) { runs[static_cast<size_t>(o * kInner + i)].fetch_add(1); };
          parallel_for(all_threads(), kInner, inner, kLotsOfWork);  // the pool is owned: runs on this thread
        };
        parallel_for(all_threads(), kOuter, outer, kLotsOfWork);
        for (auto& r : runs) {
          if (r.load() != 1) failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ParallelFor, CallsDoNotAllocate) {
  const int64_t probe = test::allocation_count();
  int* volatile allocated = new int(1);  // volatile: the compiler may not drop the pair
  delete allocated;
  ASSERT_GT(test::allocation_count(), probe) << "the allocation counter must see this allocation";
  std::atomic<int64_t> sum{0};
  const auto body = [&](int64_t c) { sum.fetch_add(c, std::memory_order_relaxed); };
  const auto slot_body = [&](int64_t c, int) { sum.fetch_add(c, std::memory_order_relaxed); };
  parallel_for(all_threads(), 64, body, kLotsOfWork);  // starts the pool's threads, which may allocate once
  const int64_t before = test::allocation_count();
  for (int i = 0; i < 100; ++i) {
    parallel_for(all_threads(), 64, body, kLotsOfWork);
    parallel_for_slots(all_threads(), 64, slot_body, kLotsOfWork);
    parallel_for(all_threads(), 64, body, 0.0);
  }
  EXPECT_EQ(test::allocation_count(), before);
  EXPECT_EQ(sum.load(), 301 * 64 * 63 / 2);
}

}  // namespace
}  // namespace onemodel

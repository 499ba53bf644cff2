// Concurrency stress (issue 7): many threads calling run on one session with interleaved input shapes, so
// plans are made, evicted and remade while others run, and a dispose arriving in the middle. Built on its own
// under ThreadSanitizer (tools/test.sh stage tsan) as well as in the ordinary test builds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "onemodel/onemodel.h"

namespace onemodel {
namespace {

constexpr int kThreads = 8;
constexpr int kBatches = 6;  // batch sizes 1..6 against a plan cache of 2: every few runs evict a plan
constexpr int kRunsPerThread = 100;

std::filesystem::path classifier_path() {
  return std::filesystem::path(ONEMODEL_SOURCE_DIR) / "examples" / "models" / "classifier.onnx";
}

std::vector<float> input_for(int batch) {
  std::vector<float> x(static_cast<size_t>(batch) * 4);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 29 % 17) - 8) / 4.0f;
  return x;
}

std::vector<float> run_batch(Session& session, int batch) {
  return session.run({{"x", Tensor::from(input_for(batch), {batch, 4})}})[0].to_vector<float>();
}

SessionOptions stress_options(ExecutionMode mode) {
  return {.mode = mode, .intra_op_threads = 2, .max_cached_plans = 2};
}

// What each batch size gives when run alone, on a fresh session.
std::map<int, std::vector<float>> single_threaded_results(ExecutionMode mode) {
  Session session = Session::load(classifier_path(), stress_options(mode));
  std::map<int, std::vector<float>> results;
  for (int b = 1; b <= kBatches; ++b) results[b] = run_batch(session, b);
  return results;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Stress, InterleavedShapesOnOneSessionMatchSingleThreadedRuns) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto expected = single_threaded_results(mode);
    Session session = Session::load(classifier_path(), stress_options(mode));
    std::atomic<int> mismatches{0}, runs{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kRunsPerThread; ++i) {
          const int batch = (t + i * 5) % kBatches + 1;
          if (!same_bits(run_batch(session, batch), expected.at(batch))) ++mismatches;
          ++runs;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(runs.load(), kThreads * kRunsPerThread);
    EXPECT_EQ(mismatches.load(), 0) << (mode == ExecutionMode::Exact ? "exact" : "fast");
  }
}

TEST(Stress, DisposeWhileRunningFinishesRunsOrRefusesThem) {
  const auto expected = single_threaded_results(ExecutionMode::Fast);
  Session session = Session::load(classifier_path(), stress_options(ExecutionMode::Fast));
  std::atomic<int> mismatches{0}, completed{0}, refused{0}, other_errors{0};
  std::atomic<bool> disposed{false}, refused_before_dispose{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Runs until the session refuses: a dispose that never takes effect hangs the test (ctest's timeout).
      for (int i = 0;; ++i) {
        const int batch = (t * 3 + i) % kBatches + 1;
        try {
          if (!same_bits(run_batch(session, batch), expected.at(batch))) ++mismatches;
          ++completed;
        } catch (const SessionError& e) {
          if (e.kind() != SessionError::Kind::Disposed) {
            ++other_errors;
          } else {
            ++refused;
          }
          // A refusal is only allowed once dispose has been called (the flag is set just before the call).
          if (!disposed.load()) refused_before_dispose = true;
          return;
        }
      }
    });
  }
  while (completed.load() < kThreads * 10) std::this_thread::yield();
  disposed = true;
  session.dispose();
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(other_errors.load(), 0);
  EXPECT_EQ(refused.load(), kThreads);  // every thread ends on a refusal after the dispose
  EXPECT_FALSE(refused_before_dispose.load());
  EXPECT_GE(completed.load(), kThreads * 10);
  try {
    run_batch(session, 1);
    ADD_FAILURE() << "a disposed session ran";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::Disposed);
  }
}

}  // namespace
}  // namespace onemodel

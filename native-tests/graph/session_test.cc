// Sessions and plans: the sample models, input validation, the plan cache, threads, the allocation-free warm
// run.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <thread>

#include "onemodel/onemodel.h"
#include "support/allocation_counter.h"

namespace onemodel {
namespace {

std::filesystem::path model_path(const char* name) {
  return std::filesystem::path(ONEMODEL_SOURCE_DIR) / "examples" / "models" / name;
}

std::vector<float> wide_input() {
  std::vector<float> x(256);
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 101 - 50) / 64.0f;
  return x;
}

TEST(Session, ClassifierMatchesTheCookbook) {
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    auto model = Model::load(model_path("classifier.onnx"), {.mode = mode});
    std::vector<float> x = {5.1f, 3.5f, 1.4f, 0.2f};
    std::vector<float> p = model.run(std::span<const float>(x));
    ASSERT_EQ(p.size(), 3u);
    EXPECT_NEAR(p[0], 0.2323, 5e-5);
    EXPECT_NEAR(p[1], 0.2813, 5e-5);
    EXPECT_NEAR(p[2], 0.4864, 5e-5);
  }
}

TEST(Session, ScorerNamedInputsInAnyOrder) {
  auto s = Session::load(model_path("scorer.onnx"));
  ASSERT_EQ(s.inputs().size(), 2u);
  EXPECT_EQ(s.inputs()[0].name, "features");
  EXPECT_EQ(s.inputs()[0].dims[0].param, "batch");
  auto outs = s.run({{"bias", Tensor::from<float>({0.5f, 1.5f}, {1, 2})},
                     {"features", Tensor::from<float>({1, 2, 3, 4, 5, 6}, {2, 3})}},
                    {"score", "best"});
  EXPECT_EQ(outs[0].to_vector<float>(), (std::vector<float>{4.5f, 6.5f, 10.5f, 12.5f}));
  EXPECT_EQ(outs[0].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(outs[1].to_vector<float>(), (std::vector<float>{6.5f, 12.5f}));
}

TEST(Session, InputErrorsAreInvalidInputBeforeRunning) {
  auto s = Session::load(model_path("scorer.onnx"));
  auto f = Tensor::from<float>({1, 2, 3}, {1, 3});
  auto b = Tensor::from<float>({0, 0}, {1, 2});
  auto kind_of = [&](auto&& call) {
    try {
      call();
    } catch (const SessionError& e) {
      return e.kind();
    }
    return SessionError::Kind::Disposed;  // "no error" marker for the assertion below
  };
  EXPECT_EQ(kind_of([&] { s.run({{"features", f}}); }), SessionError::Kind::InvalidInput);  // missing bias
  EXPECT_EQ(kind_of([&] {
              s.run({{"features", f}, {"bias", b}, {"extra", b}});
            }),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(kind_of([&] {
              s.run({{"features", Tensor::from<float>({1, 2}, {1, 2})}, {"bias", b}});
            }),
            SessionError::Kind::InvalidInput);  // fixed extent 3 violated
  EXPECT_EQ(kind_of([&] {
              s.run({{"features", Tensor::from<int64_t>({1, 2, 3}, {1, 3})}, {"bias", b}});
            }),
            SessionError::Kind::InvalidInput);  // element type
  EXPECT_EQ(kind_of([&] {
              s.run({{"features", f}, {"bias", b}}, {"nope"});
            }),
            SessionError::Kind::InvalidInput);
}

TEST(Session, MissingOperatorsAreAllListed) {
  try {
    Session::load(model_path("unsupported.onnx"));
    FAIL() << "expected UnsupportedOperator";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::UnsupportedOperator);
    EXPECT_EQ(e.operators(),
              (std::vector<std::string>{"DeformConv (opset 22)", "ImageDecoder (opset 22)"}));
    EXPECT_NE(std::string(e.what()).find("DeformConv (opset 22), ImageDecoder (opset 22)"),
              std::string::npos);
  }
}

TEST(Session, ExactModeRefusesOperatorsWithoutExactKernels) {
  try {
    Session::load(model_path("wave.onnx"), {.mode = ExecutionMode::Exact});
    FAIL() << "expected ExactModeUnavailable";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::ExactModeUnavailable);
    EXPECT_EQ(e.operators(), (std::vector<std::string>{"Cos"}));
    EXPECT_NE(std::string(e.what()).find("no exact kernel exists for Cos"), std::string::npos);
  }
  auto fast = Model::load(model_path("wave.onnx"));
  std::vector<float> t = {0, 1, 2, 3};
  auto y = fast.run(std::span<const float>(t));
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(y[i], std::cos(static_cast<double>(t[i])), 1e-6);
}

TEST(Session, PlanCacheServesManyShapesAndEvictsOldest) {
  auto s = Session::load(model_path("scorer.onnx"), {.max_cached_plans = 2});
  auto b = Tensor::from<float>({0.5f, 1.5f}, {1, 2});
  for (int round = 0; round < 3; ++round) {
    for (int64_t batch : {1, 2, 3, 4}) {
      std::vector<float> f(static_cast<size_t>(batch * 3));
      for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(i);
      auto outs = s.run({{"features", Tensor::from(f, {batch, 3})}, {"bias", b}});
      ASSERT_EQ(outs[0].shape()[0], batch);
      for (int64_t r = 0; r < batch; ++r) {
        float x0 = f[static_cast<size_t>(3 * r)], x1 = x0 + 1, x2 = x0 + 2;
        EXPECT_EQ(outs[0].data<float>()[static_cast<size_t>(2 * r)], x0 + x2 + 0.5f);
        EXPECT_EQ(outs[0].data<float>()[static_cast<size_t>(2 * r + 1)], x1 + x2 + 1.5f);
      }
    }
  }
}

TEST(Session, WarmRunAllocatesNothingAtOneThread) {
  auto s = Session::load(model_path("wide.onnx"), {.intra_op_threads = 1});
  std::vector<NamedTensor> feeds = {{"x", Tensor::from(wide_input(), {1, 256})}};
  std::vector<std::string> names = {"y"};
  std::vector<Tensor> outs;
  s.run(feeds, names, outs);
  s.run(feeds, names, outs);
  int64_t before = test::allocation_count();
  s.run(feeds, names, outs);
  EXPECT_EQ(test::allocation_count() - before, 0) << "tensor form with caller outputs";

  std::vector<float> x = wide_input(), y(64);
  std::array<int64_t, 8> out_shape{};
  const int64_t in_shape[] = {1, 256};
  s.run<float, float>(x, in_shape, y, out_shape);
  before = test::allocation_count();
  size_t rank = s.run<float, float>(x, in_shape, y, out_shape);
  EXPECT_EQ(test::allocation_count() - before, 0) << "span form";
  EXPECT_EQ(rank, 2u);
  EXPECT_EQ(out_shape[1], 64);
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), outs[0].to_vector<float>());
}

TEST(Session, ConcurrentRunsAgreeWithOneThread) {
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    auto s = Session::load(model_path("wide.onnx"), {.mode = mode});
    auto reference = s.run({{"x", Tensor::from(wide_input(), {1, 256})}})[0].to_vector<float>();
    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 20; ++i) {
          auto y = s.run({{"x", Tensor::from(wide_input(), {1, 256})}})[0].to_vector<float>();
          if (std::memcmp(y.data(), reference.data(), y.size() * 4) != 0) ++mismatches;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0);
  }
}

TEST(Session, ExactBitsDoNotDependOnThreadsOrKernelPath) {
  std::vector<float> first;
  for (const char* path : {"scalar", "v128", "avx2", "avx512"}) {
    for (int threads : {1, 2}) {
      std::unique_ptr<Model> model;
      try {
        model = std::make_unique<Model>(
            Model::load(model_path("wide.onnx"),
                        {.mode = ExecutionMode::Exact, .intra_op_threads = threads, .kernels = path}));
      } catch (const SessionError& e) {
        ASSERT_EQ(e.kind(), SessionError::Kind::Unsupported) << e.what();
        std::cout << "kernel path " << path << " not on this machine: row not compared\n";
        continue;
      }
      std::vector<float> x = wide_input();
      auto y = model->run(std::span<const float>(x));
      if (first.empty()) first = y;
      EXPECT_EQ(std::memcmp(y.data(), first.data(), y.size() * 4), 0)
          << path << " at " << threads << " threads";
    }
  }
}

TEST(Session, DisposedSessionRefusesToRun) {
  auto s = Session::load(model_path("classifier.onnx"));
  s.dispose();
  try {
    s.run({{"x", Tensor::from<float>({1, 2, 3, 4}, {1, 4})}});
    FAIL();
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionError::Kind::Disposed);
  }
}

}  // namespace
}  // namespace onemodel

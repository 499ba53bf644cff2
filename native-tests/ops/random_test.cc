// The random operators and Dropout in training mode: the counter-based streams are reproducible (same seed,
// same values; every run alike), differ between seeds and between unseeded nodes, do not depend on the thread
// count, kernel path or mode, and have the right distribution (range, mean, spread, keep fraction). Dropout
// with ratio 0 is the identity; a ratio outside [0, 1] is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr int64_t kCount = 100003;  // more than three parallel chunks of 2^15 elements

Tensor floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return tensor_of<float>(DType::F32, dims, v);
}

Tensor random_tensor(std::string_view op, const std::vector<Attr>& attrs, const SessionOptions& o = {}) {
  ModelBuilder m(15);
  m.node(op, {}, {"y"}, attrs).output("y", DType::F32);
  return m.run({}, o).at(0);
}

double mean_of(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

TEST(Random, UniformRangeMeanAndReproducibility) {
  const std::vector<Attr> attrs = {Attr::ints("shape", {kCount}), Attr::f("low", -2.0f),
                                   Attr::f("high", 6.0f), Attr::f("seed", 3.0f)};
  const Tensor first = random_tensor("RandomUniform", attrs, options(ExecutionMode::Fast, "", 1));
  const auto v = elements_of<float>(first);
  for (float x : v) {
    ASSERT_GE(x, -2.0f);
    ASSERT_LE(x, 6.0f);
  }
  EXPECT_NEAR(mean_of(v), 2.0, 0.05);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        EXPECT_TRUE(same_bytes(random_tensor("RandomUniform", attrs, options(mode, path, threads)), first))
            << path << " threads " << threads;
      }
    }
  }
  std::vector<Attr> other = attrs;
  other.back() = Attr::f("seed", 4.0f);
  EXPECT_FALSE(same_bytes(random_tensor("RandomUniform", other), first));
}

TEST(Random, NormalMomentsAndExactBits) {
  const std::vector<Attr> attrs = {Attr::ints("shape", {kCount}), Attr::f("mean", 1.0f),
                                   Attr::f("scale", 2.0f)};
  const Tensor exact = random_tensor("RandomNormal", attrs, options(ExecutionMode::Exact, "scalar", 1));
  const auto v = elements_of<float>(exact);
  const double mean = mean_of(v);
  double var = 0;
  for (float x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size());
  EXPECT_NEAR(mean, 1.0, 0.05);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.05);
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      EXPECT_TRUE(same_bytes(
          random_tensor("RandomNormal", attrs, options(ExecutionMode::Exact, path, threads)), exact))
          << path << " threads " << threads;
    }
  }
}

// Two unseeded nodes of one model draw different values; each run of a session draws the same ones.
TEST(Random, UnseededNodesDifferAndRunsRepeat) {
  ModelBuilder m(15);
  m.input("x", DType::F32, {64}).output("a", DType::F32).output("b", DType::F32);
  m.node("RandomUniformLike", {"x"}, {"a"}, {}, "first");
  m.node("RandomUniformLike", {"x"}, {"b"}, {}, "second");
  Session s = m.session();
  const Tensor x = floats({64}, std::vector<float>(64));
  const auto once = s.run({{"x", x}});
  const auto again = s.run({{"x", x}});
  EXPECT_FALSE(same_bytes(once[0], once[1]));
  EXPECT_TRUE(same_bytes(once[0], again[0]));
  EXPECT_TRUE(same_bytes(once[1], again[1]));
}

TEST(Random, BernoulliCertaintiesAndFraction) {
  std::vector<float> p(kCount);
  for (size_t i = 0; i < p.size(); ++i) p[i] = i % 3 == 0 ? 0.0f : i % 3 == 1 ? 1.0f : 0.25f;
  ModelBuilder m(15);
  m.input("p", DType::F32, {kCount}).output("y", DType::I32);
  m.node("Bernoulli", {"p"}, {"y"}, {Attr::i("dtype", 6), Attr::f("seed", 1.0f)});
  const Tensor y1 = m.run({{"p", floats({kCount}, p)}}, options(ExecutionMode::Exact, "", 1)).at(0);
  const Tensor y2 = m.run({{"p", floats({kCount}, p)}}, options(ExecutionMode::Fast, "", 2)).at(0);
  EXPECT_TRUE(same_bytes(y1, y2));
  const auto y = elements_of<int32_t>(y1);
  int64_t ones = 0, quarter = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (i % 3 == 2) {
      ++quarter;
      ones += y[i];
    } else {
      ASSERT_EQ(y[i], i % 3 == 0 ? 0 : 1) << i;
    }
  }
  EXPECT_NEAR(static_cast<double>(ones) / static_cast<double>(quarter), 0.25, 0.02);
}

std::vector<Tensor> training_dropout(const Tensor& x, float ratio, bool training,
                                     const SessionOptions& o = {}) {
  ModelBuilder m(13);
  m.input("x", DType::F32, x.shape()).input("r", DType::F32, {}).input("t", DType::Bool, {});
  m.output("y", DType::F32).output("mask", DType::Bool);
  m.node("Dropout", {"x", "r", "t"}, {"y", "mask"}, {Attr::i("seed", 5)});
  Tensor t(DType::Bool, {});
  *static_cast<uint8_t*>(t.raw()) = training ? 1 : 0;
  return m.run({{"x", x}, {"r", floats({}, {ratio})}, {"t", t}}, o);
}

TEST(Random, DropoutTraining) {
  std::vector<float> xs(kCount);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i % 1000) - 500.5f;
  const Tensor x = floats({kCount}, xs);
  // Ratio 0, or no training: the input unchanged and an all-true mask.
  for (auto [ratio, training] : {std::pair{0.0f, true}, std::pair{0.5f, false}}) {
    const auto out = training_dropout(x, ratio, training);
    EXPECT_TRUE(same_bytes(out[0], x));
    EXPECT_EQ(elements_of<uint8_t>(out[1]), std::vector<uint8_t>(kCount, 1));
  }
  const auto out = training_dropout(x, 0.75f, true, options(ExecutionMode::Exact, "", 1));
  const auto y = elements_of<float>(out[0]);
  const auto mask = elements_of<uint8_t>(out[1]);
  int64_t kept = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(y[i], mask[i] ? xs[i] * 4.0f : 0.0f) << i;
    kept += mask[i];
  }
  EXPECT_NEAR(static_cast<double>(kept) / kCount, 0.25, 0.01);
  const auto two_threads = training_dropout(x, 0.75f, true, options(ExecutionMode::Fast, "", 2));
  EXPECT_TRUE(same_bytes(two_threads[0], out[0]));
  EXPECT_TRUE(same_bytes(two_threads[1], out[1]));
  for (float bad : {-0.1f, 1.5f, std::nanf("")}) {
    EXPECT_EQ(error_kind([&] { training_dropout(x, bad, true); }), Kind::InvalidInput) << bad;
  }
}

// In a half-precision model the output type still follows `dtype` (these nodes are not widened to float32).
TEST(Random, HalfInputsKeepTheDtypeAttribute) {
  ModelBuilder m(15);
  m.input("p", DType::F16, {4}).output("y", DType::F32).output("u", DType::F16);
  m.node("Bernoulli", {"p"}, {"y"}, {Attr::i("dtype", 1)});
  m.node("RandomUniformLike", {"p"}, {"u"}, {Attr::f("low", 2.0f), Attr::f("high", 3.0f)});
  const Tensor p = tensor_of<uint16_t>(DType::F16, {4}, {0x0000, 0x3C00, 0x0000, 0x3C00});  // 0, 1, 0, 1
  const auto out = m.run({{"p", p}});
  ASSERT_EQ(out[0].dtype(), DType::F32);
  EXPECT_EQ(elements_of<float>(out[0]), (std::vector<float>{0, 1, 0, 1}));
  ASSERT_EQ(out[1].dtype(), DType::F16);
  for (uint16_t h : elements_of<uint16_t>(out[1])) {
    EXPECT_GE(h, 0x4000);  // 2.0
    EXPECT_LE(h, 0x4200);  // 3.0
  }
}

TEST(Random, RefusesBadAttributes) {
  EXPECT_EQ(error_kind([] { random_tensor("RandomUniform", {}); }), Kind::InvalidModel);  // no shape
  EXPECT_EQ(error_kind([] { random_tensor("RandomNormal", {Attr::ints("shape", {-1})}); }),
            Kind::InvalidModel);
  EXPECT_EQ(error_kind([] {
              random_tensor("RandomUniform", {Attr::ints("shape", {2}), Attr::i("dtype", 6)});
            }),
            Kind::Unsupported);
}

}  // namespace
}  // namespace onemodel::test

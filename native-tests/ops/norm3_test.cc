// BatchNormalization with training_mode = 1, MeanVarianceNormalization and LRN against double-precision
// references; the exact ones also bit for bit across kernel paths, thread counts and modes; LRN refused in
// exact mode; bad axes and sizes refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

Tensor floats(const std::vector<int64_t>& dims, const std::vector<float>& v) {
  return tensor_of<float>(DType::F32, dims, v);
}

std::vector<float> pseudo_random(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(seed >> 8) * 0x1p-24f * 8.0f - 3.0f;
  }
  return v;
}

std::vector<Tensor> batch_norm_training(const Tensor& x, const SessionOptions& o = {}) {
  const int64_t c = x.shape()[1];
  ModelBuilder m(15);
  m.input("x", DType::F32, x.shape());
  const char* names[] = {"scale", "bias", "mean", "var"};
  std::vector<NamedTensor> feeds{{"x", x}};
  for (int i = 0; i < 4; ++i) {
    m.input(names[i], DType::F32, {c});
    std::vector<float> p(static_cast<size_t>(c));
    for (int64_t k = 0; k < c; ++k) p[static_cast<size_t>(k)] = 0.5f + static_cast<float>(i + k) * 0.25f;
    feeds.push_back({names[i], floats({c}, p)});
  }
  m.output("y", DType::F32).output("running_mean", DType::F32).output("running_var", DType::F32);
  m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y", "running_mean", "running_var"},
         {Attr::i("training_mode", 1), Attr::f("momentum", 0.8f), Attr::f("epsilon", 1e-3f)});
  return m.run(feeds, o);
}

TEST(Norm3, BatchNormTrainingMatchesReference) {
  const int64_t n = 3, c = 4, plane = 11000;  // more elements than one parallel chunk
  const std::vector<float> xs = pseudo_random(static_cast<size_t>(n * c * plane), 7);
  const Tensor x = floats({n, c, plane}, xs);
  const auto out = batch_norm_training(x, options(ExecutionMode::Exact, "scalar", 1));
  const auto y = elements_of<float>(out[0]);
  const auto running_mean = elements_of<float>(out[1]);
  const auto running_var = elements_of<float>(out[2]);
  for (int64_t k = 0; k < c; ++k) {
    double sum = 0, squares = 0;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < plane; ++j) sum += xs[static_cast<size_t>((b * c + k) * plane + j)];
    }
    const double mean = sum / static_cast<double>(n * plane);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < plane; ++j) {
        const double d = xs[static_cast<size_t>((b * c + k) * plane + j)] - mean;
        squares += d * d;
      }
    }
    const double var = squares / static_cast<double>(n * plane);
    const double scale = 0.5 + k * 0.25, bias = 0.75 + k * 0.25, in_mean = 1.0 + k * 0.25,
                 in_var = 1.25 + k * 0.25;
    EXPECT_NEAR(running_mean[static_cast<size_t>(k)], in_mean * 0.8 + mean * 0.2, 1e-5);
    EXPECT_NEAR(running_var[static_cast<size_t>(k)], in_var * 0.8 + var * 0.2, 1e-5);
    for (int64_t j = 0; j < plane; j += 97) {
      const size_t at = static_cast<size_t>((2 * c + k) * plane + j);
      EXPECT_NEAR(y[at], (xs[at] - mean) / std::sqrt(var + 1e-3) * scale + bias, 1e-5);
    }
  }
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        const auto again = batch_norm_training(x, options(mode, path, threads));
        for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(same_bytes(again[i], out[i])) << path << " " << threads;
      }
    }
  }
}

// conv-batchnorm-fold (fast mode) must leave a training-mode BatchNormalization alone: its statistics are the
// batch's, not the constant inputs. Fast and exact (which never folds) then agree closely.
TEST(Norm3, BatchNormTrainingIsNotFoldedIntoConv) {
  ModelBuilder m(15);
  m.input("x", DType::F32, {2, 2, 3, 3}).output("y", DType::F32);
  m.initializer("w", floats({2, 2, 1, 1}, {1, 0.5f, -1, 2}));
  const Tensor ones = floats({2}, {1, 1}), zeros = floats({2}, {0, 0});
  m.initializer("scale", ones).initializer("bias", zeros).initializer("mean", zeros).initializer("var", ones);
  m.node("Conv", {"x", "w"}, {"c"});
  m.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"y"}, {Attr::i("training_mode", 1)});
  const Tensor x = floats({2, 2, 3, 3}, pseudo_random(36, 5));
  const auto fast = elements_of<float>(m.run({{"x", x}}, options(ExecutionMode::Fast)).at(0));
  const auto exact = elements_of<float>(m.run({{"x", x}}, options(ExecutionMode::Exact)).at(0));
  double sum = 0;
  for (size_t i = 0; i < fast.size(); ++i) {
    EXPECT_NEAR(fast[i], exact[i], 1e-5) << i;
    sum += exact[i];
  }
  EXPECT_NEAR(sum, 0.0, 1e-4);  // normalised by its own batch mean
}

Tensor mvn(const Tensor& x, const std::vector<int64_t>& axes, const SessionOptions& o = {}) {
  ModelBuilder m(13);
  m.input("x", DType::F32, x.shape()).output("y", DType::F32);
  m.node("MeanVarianceNormalization", {"x"}, {"y"}, {Attr::ints("axes", axes)});
  return m.run({{"x", x}}, o).at(0);
}

// Axes {0, 2} of [2, 3, 50000]: each of the 3 groups takes elements from both batches, not contiguous.
TEST(Norm3, MeanVarianceNormalizationAnyAxes) {
  const int64_t a = 2, b = 3, c = 50000;
  const std::vector<float> xs = pseudo_random(static_cast<size_t>(a * b * c), 11);
  const Tensor x = floats({a, b, c}, xs);
  const Tensor exact = mvn(x, {0, 2}, options(ExecutionMode::Exact, "scalar", 1));
  const auto y = elements_of<float>(exact);
  for (int64_t g = 0; g < b; ++g) {
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < c; ++j) sum += xs[static_cast<size_t>((i * b + g) * c + j)];
    }
    const double mean = sum / static_cast<double>(a * c);
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < c; ++j) {
        const double d = xs[static_cast<size_t>((i * b + g) * c + j)] - mean;
        squares += d * d;
      }
    }
    const double sd = std::sqrt(squares / static_cast<double>(a * c));
    for (int64_t i = 0; i < a; ++i) {
      for (int64_t j = 0; j < c; j += 101) {
        const size_t at = static_cast<size_t>((i * b + g) * c + j);
        EXPECT_NEAR(y[at], (xs[at] - mean) / sd, 1e-5) << at;
      }
    }
  }
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      EXPECT_TRUE(same_bytes(mvn(x, {0, 2}, options(ExecutionMode::Fast, path, threads)), exact)) << path;
    }
  }
  // A group without spread gives zeros; an axis outside the rank is refused.
  EXPECT_EQ(elements_of<float>(mvn(floats({2, 2}, {5, 5, -1, 3}), {1})), (std::vector<float>{0, 0, -1, 1}));
  EXPECT_EQ(error_kind([&] { mvn(x, {3}); }), Kind::InvalidInput);
}

TEST(Norm3, LrnFastOnly) {
  const int64_t n = 2, c = 5, plane = 6;
  const std::vector<float> xs = pseudo_random(static_cast<size_t>(n * c * plane), 3);
  const Tensor x = floats({n, c, 2, 3}, xs);
  ModelBuilder m(13);
  m.input("x", DType::F32, {n, c, 2, 3}).output("y", DType::F32);
  m.node("LRN", {"x"}, {"y"}, {Attr::i("size", 4), Attr::f("alpha", 0.01f), Attr::f("beta", 0.6f)});
  const auto y = elements_of<float>(m.run({{"x", x}}).at(0));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < c; ++k) {
      for (int64_t p = 0; p < plane; ++p) {
        double squares = 0;  // window [k - 1, k + 2] for size 4
        for (int64_t i = std::max<int64_t>(0, k - 1); i <= std::min<int64_t>(c - 1, k + 2); ++i) {
          const double v = xs[static_cast<size_t>((b * c + i) * plane + p)];
          squares += v * v;
        }
        const size_t at = static_cast<size_t>((b * c + k) * plane + p);
        EXPECT_NEAR(y[at], xs[at] / std::pow(1.0 + 0.01 / 4 * squares, 0.6), 1e-5) << at;
      }
    }
  }
  EXPECT_EQ(error_kind([&] { m.session(options(ExecutionMode::Exact)); }), Kind::ExactModeUnavailable);
  ModelBuilder bad(13);
  bad.input("x", DType::F32, {1, 1}).output("y", DType::F32);
  bad.node("LRN", {"x"}, {"y"}, {Attr::i("size", 0)});
  EXPECT_EQ(error_kind([&] { bad.session(); }), Kind::InvalidModel);
}

}  // namespace
}  // namespace onemodel::test

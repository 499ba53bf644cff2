// BatchNormalization and PRelu through Session. BatchNormalization against the steps of ops-conv.md
// (a = scale / sqrt(var + eps), b = bias - mean * a, y = x * a + b, each rounded on its own) bit for bit and
// against the textbook formula in double; PRelu against x < 0 ? x * slope : x with the slope broadcast to X;
// NaN canonical in both modes; refused cases. Plus the ONNX backend node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "ops/op_test_util.h"
#include "support/allocation_counter.h"

namespace onemodel::test {
namespace {

constexpr uint32_t kCanonicalNaN = 0x7FC00000u;
const float kNaN = __builtin_bit_cast(float, 0xFFC00001u);
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> random_floats(size_t n, std::mt19937& rng, float lo = -3.0f, float hi = 3.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

std::vector<Tensor> batch_norm(const std::vector<int64_t>& dims, const std::vector<float>& x,
                               const std::vector<std::vector<float>>& params, float epsilon,
                               const SessionOptions& o = {}, int64_t opset = 15,
                               std::vector<Attr> extra = {}) {
  const int64_t c = dims[1];
  ModelBuilder m(opset);
  m.input("x", DType::F32, dims).output("y", DType::F32);
  const char* names[] = {"scale", "bias", "mean", "var"};
  for (size_t i = 0; i < 4; ++i)
    m.initializer(names[i], Tensor::from<float>(params[i], {static_cast<int64_t>(params[i].size())}));
  (void)c;
  extra.push_back(Attr::f("epsilon", epsilon));
  m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, extra);
  return m.run({{"x", Tensor::from<float>(x, dims)}}, o);
}

TEST(BatchNormOp, SpecStepsBitForBitOnEveryPath) {
  std::mt19937 rng(21);
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{2, 3, 5, 7}, {1, 4}, {3, 2, 9}, {1, 5, 3, 4, 6}, {2, 16, 33, 31}}) {
    const int64_t c = dims[1];
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::vector<float> x = random_floats(static_cast<size_t>(count), rng);
    x[0] = kNaN;
    if (x.size() > 2) x[2] = kInf;
    const std::vector<std::vector<float>> params = {
        random_floats(static_cast<size_t>(c), rng), random_floats(static_cast<size_t>(c), rng),
        random_floats(static_cast<size_t>(c), rng), random_floats(static_cast<size_t>(c), rng, 0.0f, 2.0f)};
    const float eps = 1e-3f;
    const int64_t plane = count / dims[0] / c;
    std::vector<uint32_t> want(x.size());
    std::vector<double> textbook(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t ch = static_cast<size_t>((static_cast<int64_t>(i) / plane) % c);
      const float a = params[0][ch] / std::sqrt(params[3][ch] + eps);
      const float b = params[1][ch] - params[2][ch] * a;
      const float y = x[i] * a + b;
      want[i] = y != y ? kCanonicalNaN : bits_of(y);
      textbook[i] =
          (x[i] - params[2][ch]) / std::sqrt(static_cast<double>(params[3][ch]) + eps) * params[0][ch] +
          params[1][ch];
    }
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
          const auto y = batch_norm(dims, x, params, eps, options(mode, path, threads))[0].to_vector<float>();
          ASSERT_EQ(y.size(), want.size());
          for (size_t i = 0; i < y.size(); ++i) {
            ASSERT_EQ(bits_of(y[i]), want[i]) << i;
            if (std::isfinite(textbook[i])) {
              ASSERT_NEAR(y[i], textbook[i], 1e-4 * (1 + std::fabs(textbook[i])));
            }
          }
        }
      }
    }
  }
}

TEST(BatchNormOp, OlderOpsetsAndRefusedCases) {
  const std::vector<std::vector<float>> params = {{1, 2}, {0, 1}, {0.5f, 0}, {1, 4}};
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<float> want = {(1 - 0.5f) / std::sqrt(1 + 1e-5f), (2 - 0.5f) / std::sqrt(1 + 1e-5f),
                                   2 * 3 / std::sqrt(4 + 1e-5f) + 1, 2 * 4 / std::sqrt(4 + 1e-5f) + 1};
  for (int64_t opset : {7, 9, 14}) {
    const auto y = batch_norm({1, 2, 2}, x, params, 1e-5f, {}, opset)[0].to_vector<float>();
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << opset;
  }
  // training_mode normalises with the batch's own statistics (mean 1.5 and 3.5, variance 0.25); norm3_test.cc
  // has the rest.
  const auto trained =
      batch_norm({1, 2, 2}, x, params, 1e-5f, {}, 15, {Attr::i("training_mode", 1)})[0].to_vector<float>();
  const std::vector<float> trained_want = {-1, 1, -1, 3};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(trained[i], trained_want[i], 1e-4);
  EXPECT_EQ(error_kind([&] {
              batch_norm({1, 2, 2}, x, params, 1e-5f, {}, 7, {Attr::i("spatial", 0)});
            }),
            SessionError::Kind::Unsupported);
  const std::vector<std::vector<float>> short_params = {{1}, {0}, {0}, {1}};
  EXPECT_EQ(error_kind([&] {
              batch_norm({1, 2, 2}, x, short_params, 1e-5f);
            }),
            SessionError::Kind::InvalidInput);
}

std::vector<Tensor> prelu(const Tensor& x, const Tensor& slope, const SessionOptions& o = {},
                          int64_t opset = 16) {
  ModelBuilder m(opset);
  m.input("x", x.dtype(), x.shape()).input("s", slope.dtype(), slope.shape()).output("y", x.dtype());
  m.node("PRelu", {"x", "s"}, {"y"});
  return m.run({{"x", x}, {"s", slope}}, o);
}

TEST(PReluOp, BroadcastsSlopeToX) {
  std::mt19937 rng(4);
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  std::vector<float> x = random_floats(120, rng);
  x[1] = kNaN;
  x[2] = -kInf;
  x[3] = -0.0f;
  for (const std::vector<int64_t>& sdims :
       std::vector<std::vector<int64_t>>{{3, 1, 1}, {5}, {1}, {2, 3, 4, 5}, {4, 1}, {}}) {
    int64_t count = 1;
    for (int64_t d : sdims) count *= d;
    const std::vector<float> s = random_floats(static_cast<size_t>(count), rng, -1.0f, 1.0f);
    std::vector<uint32_t> want(120);
    for (size_t i = 0; i < 120; ++i) {
      // Slope index by numpy broadcasting from the right.
      int64_t rem = static_cast<int64_t>(i), si = 0, stride = 1;
      for (int a = 3, b = static_cast<int>(sdims.size()) - 1; a >= 0; --a, --b) {
        const int64_t coord = rem % dims[static_cast<size_t>(a)];
        rem /= dims[static_cast<size_t>(a)];
        if (b >= 0) {
          if (sdims[static_cast<size_t>(b)] != 1) si += coord * stride;
          stride *= sdims[static_cast<size_t>(b)];
        }
      }
      const float y = x[i] < 0 ? x[i] * s[static_cast<size_t>(si)] : x[i];
      want[i] = y != y ? kCanonicalNaN : bits_of(y);
    }
    for (int threads : {1, 2}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        const auto y =
            prelu(Tensor::from<float>(x, dims), Tensor::from<float>(s, sdims), options(mode, {}, threads))[0]
                .to_vector<float>();
        for (size_t i = 0; i < 120; ++i) ASSERT_EQ(bits_of(y[i]), want[i]) << i;
      }
    }
  }
  // The slope may not make X larger.
  EXPECT_EQ(error_kind([&] {
              prelu(Tensor::from<float>({1, 2}, {2}), Tensor::from<float>({1, 2, 3, 4}, {2, 2}));
            }),
            SessionError::Kind::InvalidInput);
}

TEST(PReluOp, OtherTypes) {
  const auto y = prelu(Tensor::from<int32_t>({-4, 3, -2, 0}, {4}), Tensor::from<int32_t>({3}, {1}))[0];
  EXPECT_EQ(y.to_vector<int32_t>(), (std::vector<int32_t>{-12, 3, -6, 0}));
  const auto d = prelu(Tensor::from<double>({-4, 3}, {2}), Tensor::from<double>({0.25, 2}, {2}))[0];
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{-1, 3}));
  EXPECT_EQ(error_kind([&] { prelu(Tensor::from<int8_t>({-4}, {1}), Tensor::from<int8_t>({3}, {1})); }),
            SessionError::Kind::Unsupported);
}

// One graph of every operator of issue 4 (constant scales, so the plan is static): after two runs, a third
// allocates nothing, at 1 and 2 threads.
TEST(VisionOp, WarmRunAllocatesNothing) {
  const std::vector<int64_t> dims = {1, 4, 12, 10};
  std::mt19937 rng(8);
  const std::vector<float> x = random_floats(480, rng);
  ModelBuilder m(19);
  m.input("x", DType::F32, dims);
  for (const char* name : {"bn", "pr", "mp", "ap", "gm", "ga", "rl", "rc", "rn"}) m.output(name, DType::F32);
  m.output("mi", DType::I64);
  const char* params[] = {"scale", "bias", "mean", "var"};
  for (const char* p : params) m.initializer(p, Tensor::from<float>(random_floats(4, rng, 0.5f, 1.5f), {4}));
  m.initializer("slope", Tensor::from<float>({0.1f, 0.2f, 0.3f, 0.4f}, {4, 1, 1}));
  m.initializer("scales", Tensor::from<float>({1, 1, 1.5f, 0.5f}, {4}));
  m.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"bn"});
  m.node("PRelu", {"x", "slope"}, {"pr"});
  m.node("MaxPool", {"x"}, {"mp", "mi"},
         {Attr::ints("kernel_shape", {3, 3}), Attr::ints("pads", {1, 1, 1, 1})});
  m.node("AveragePool", {"x"}, {"ap"}, {Attr::ints("kernel_shape", {2, 2}), Attr::ints("strides", {2, 2})});
  m.node("GlobalMaxPool", {"x"}, {"gm"}).node("GlobalAveragePool", {"x"}, {"ga"});
  m.node("Resize", {"x", "", "scales"}, {"rl"}, {Attr::s("mode", "linear"), Attr::i("antialias", 1)});
  m.node("Resize", {"x", "", "scales"}, {"rc"}, {Attr::s("mode", "cubic")});
  m.node("Resize", {"x", "", "scales"}, {"rn"});
  for (int threads : {1, 2}) {
    Session session = m.session(options(ExecutionMode::Exact, {}, threads));
    const std::vector<NamedTensor> in = {{"x", Tensor::from<float>(x, dims)}};
    const std::vector<std::string> names = {"bn", "pr", "mp", "ap", "gm", "ga", "rl", "rc", "rn", "mi"};
    std::vector<Tensor> out;
    session.run(in, names, out);
    session.run(in, names, out);
    const int64_t before = allocation_count();
    session.run(in, names, out);
    EXPECT_EQ(allocation_count(), before) << threads << " threads";
  }
}

TEST(VisionOp, BackendNodeCases) {
  EXPECT_GT(check_backend_cases({"test_batchnorm", "test_prelu"}, {"test_batchnorm_epsilon_training_mode",
                                                                   "test_batchnorm_example_training_mode"}),
            0);
}

}  // namespace
}  // namespace onemodel::test

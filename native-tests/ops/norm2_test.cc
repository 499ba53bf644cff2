// LayerNormalization, RMSNormalization, InstanceNormalization, GroupNormalization, LogSoftmax and Hardmax
// through Session, against references written here from ops-norms.md: double-precision values within a
// tolerance; exact bits equal to the spec's steps (canonical 16-partial sums, separate roundings) on every
// kernel path and thread count; broadcast Scale/B; the Mean and InvStdDev outputs; both GroupNormalization
// parameter layouts; LogSoftmax's NaN rows and -inf elements; Hardmax's first maximum and NaN rows. Plus the
// ONNX backend node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;
const float kNaN = __builtin_bit_cast(float, 0xFFC00001u);

int64_t count_of(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

std::vector<float> random_floats(size_t n, std::mt19937& rng, float spread = 2.0f) {
  std::normal_distribution<float> normal(0.5f, spread);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  return v;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& want, const std::string& what,
                  double tolerance = 1e-5) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tolerance * (1 + std::fabs(want[i]))) << what << " element " << i;
  }
}

// The canonical 16-partial float sum.
float sum16(const std::vector<float>& t) {
  float p[16] = {};
  for (size_t j = 0; j < t.size(); ++j) p[j % 16] = p[j % 16] + t[j];
  for (int half = 8; half >= 1; half /= 2) {
    for (int k = 0; k < half; ++k) p[k] = p[k] + p[k + half];
  }
  return p[0];
}

// The spec's steps for one row in float: mean, variance, inv, then ((x - mean) * inv) * scale + bias.
struct SpecRow {
  float mean, inv;
  std::vector<float> y;
};

SpecRow spec_row(const float* x, size_t n, float epsilon, const std::vector<float>& scale,
                 const std::vector<float>* bias, bool rms = false) {
  SpecRow r;
  const float count = static_cast<float>(n);
  r.mean = rms ? 0.0f : sum16(std::vector<float>(x, x + n)) / count;
  std::vector<float> sq(n);
  for (size_t j = 0; j < n; ++j) {
    const float d = x[j] - r.mean;
    sq[j] = d * d;
  }
  const float v = sum16(sq) / count;
  r.inv = 1.0f / std::sqrt(v + epsilon);
  r.y.resize(n);
  for (size_t j = 0; j < n; ++j) {
    const float a = (x[j] - r.mean) * r.inv;
    const float b = a * scale[j];
    r.y[j] = bias != nullptr ? b + (*bias)[j] : b;
  }
  return r;
}

// --- LayerNormalization

struct LayerNormRun {
  std::vector<int64_t> dims, scale_dims;
  int64_t axis;
  bool with_bias;
  float epsilon = 1e-5f;
};

std::vector<Tensor> layer_norm(const LayerNormRun& c, const std::vector<float>& x,
                               const std::vector<float>& scale, const std::vector<float>& bias, int outputs,
                               const SessionOptions& o = {}) {
  ModelBuilder m(17);
  m.input("x", DType::F32, c.dims).output("y", DType::F32);
  m.initializer("scale", Tensor::from<float>(scale, c.scale_dims));
  if (c.with_bias) m.initializer("bias", Tensor::from<float>(bias, c.scale_dims));
  if (outputs > 1) m.output("mean", DType::F32).output("inv", DType::F32);
  const std::vector<Attr> attrs = {Attr::i("axis", c.axis), Attr::f("epsilon", c.epsilon)};
  if (c.with_bias && outputs > 1) {
    m.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv"}, attrs);
  } else if (c.with_bias) {
    m.node("LayerNormalization", {"x", "scale", "bias"}, {"y"}, attrs);
  } else if (outputs > 1) {
    m.node("LayerNormalization", {"x", "scale"}, {"y", "mean", "inv"}, attrs);
  } else {
    m.node("LayerNormalization", {"x", "scale"}, {"y"}, attrs);
  }
  return m.run({{"x", Tensor::from<float>(x, c.dims)}}, o);
}

// The parameter broadcast (right-aligned) over the normalised dimensions `norm`.
std::vector<float> expand(const std::vector<float>& p, const std::vector<int64_t>& pdims,
                          const std::vector<int64_t>& norm) {
  std::vector<float> out(static_cast<size_t>(count_of(norm)));
  for (size_t j = 0; j < out.size(); ++j) {
    int64_t rest = static_cast<int64_t>(j), index = 0, stride = 1;
    for (size_t d = norm.size(); d-- > 0;) {
      const int64_t i = rest % norm[d];
      rest /= norm[d];
      const size_t pd = d + pdims.size() - norm.size();
      if (d + pdims.size() >= norm.size() && pdims[pd] != 1) index += i * stride;
      if (d + pdims.size() >= norm.size()) stride *= pdims[pd];
    }
    out[j] = p[static_cast<size_t>(index)];
  }
  return out;
}

TEST(LayerNormOp, MatchesDoubleReferenceAndSpecBits) {
  std::mt19937 rng(51);
  const std::vector<LayerNormRun> runs = {
      {{4, 37}, {37}, -1, true},      {{2, 3, 20}, {3, 20}, 1, true}, {{2, 3, 20}, {20}, 1, false},
      {{2, 3, 20}, {3, 1}, -2, true}, {{5, 6}, {5, 6}, 0, true},      {{40, 1000}, {1000}, 1, true, 1e-3f},
  };
  for (const LayerNormRun& c : runs) {
    const int rank = static_cast<int>(c.dims.size());
    const size_t axis = static_cast<size_t>(c.axis < 0 ? c.axis + rank : c.axis);
    const std::vector<int64_t> norm(c.dims.begin() + static_cast<int64_t>(axis), c.dims.end());
    const auto rows =
        static_cast<size_t>(count_of({c.dims.begin(), c.dims.begin() + static_cast<int64_t>(axis)}));
    const auto cols = static_cast<size_t>(count_of(norm));
    const auto x = random_floats(rows * cols, rng);
    const auto scale = random_floats(static_cast<size_t>(count_of(c.scale_dims)), rng, 1.0f);
    const auto bias = random_floats(static_cast<size_t>(count_of(c.scale_dims)), rng, 1.0f);
    const auto full_scale = expand(scale, c.scale_dims, norm), full_bias = expand(bias, c.scale_dims, norm);
    std::vector<double> want(x.size());
    std::vector<float> spec_y, spec_mean, spec_inv;
    for (size_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (size_t j = 0; j < cols; ++j) mean += x[r * cols + j];
      mean /= static_cast<double>(cols);
      for (size_t j = 0; j < cols; ++j) var += (x[r * cols + j] - mean) * (x[r * cols + j] - mean);
      var /= static_cast<double>(cols);
      for (size_t j = 0; j < cols; ++j) {
        want[r * cols + j] = (x[r * cols + j] - mean) / std::sqrt(var + c.epsilon) * full_scale[j] +
                             (c.with_bias ? full_bias[j] : 0.0);
      }
      const SpecRow s =
          spec_row(x.data() + r * cols, cols, c.epsilon, full_scale, c.with_bias ? &full_bias : nullptr);
      spec_y.insert(spec_y.end(), s.y.begin(), s.y.end());
      spec_mean.push_back(s.mean);
      spec_inv.push_back(s.inv);
    }
    const std::string what = "dims " + std::to_string(c.dims.size()) + " axis " + std::to_string(c.axis);
    expect_close(layer_norm(c, x, scale, bias, 1)[0].to_vector<float>(), want, what, 1e-4);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const auto out = layer_norm(c, x, scale, bias, 3, options(ExecutionMode::Exact, path, threads));
        ASSERT_EQ(out.size(), 3u);
        std::vector<int64_t> stats_dims = c.dims;
        for (size_t a = axis; a < stats_dims.size(); ++a) stats_dims[a] = 1;
        EXPECT_EQ(out[1].shape(), stats_dims);
        EXPECT_EQ(out[2].shape(), stats_dims);
        const auto y = out[0].to_vector<float>();
        for (size_t i = 0; i < y.size(); ++i)
          ASSERT_EQ(bits_of(y[i]), bits_of(spec_y[i])) << what << " " << path << " " << i;
        EXPECT_EQ(out[1].to_vector<float>(), spec_mean) << what << " " << path;
        EXPECT_EQ(out[2].to_vector<float>(), spec_inv) << what << " " << path;
      }
    }
  }
}

TEST(LayerNormOp, NaNIsCanonicalAndRowsStayApart) {
  const LayerNormRun c{{2, 3}, {3}, -1, true};
  const auto out =
      layer_norm(c, {1, kNaN, 2, 1, 2, 3}, {1, 1, 1}, {0, 0, 0}, 3, options(ExecutionMode::Exact));
  const auto y = out[0].to_vector<float>();
  for (int j = 0; j < 3; ++j) EXPECT_EQ(bits_of(y[static_cast<size_t>(j)]), kCanonicalNaN);
  EXPECT_EQ(bits_of(out[1].to_vector<float>()[0]), kCanonicalNaN);
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_LT(y[3], 0.0f);
  EXPECT_EQ(out[1].to_vector<float>()[1], 2.0f);
}

TEST(LayerNormOp, ScaleThatDoesNotBroadcastIsRejected) {
  const LayerNormRun c{{2, 3}, {2}, -1, false};
  EXPECT_EQ(error_kind([&] {
              layer_norm(c, {1, 2, 3, 4, 5, 6}, {1, 1}, {}, 1);
            }),
            SessionError::Kind::InvalidInput);
}

// --- RMSNormalization

TEST(RmsNormOp, MatchesReferenceAndSpecBits) {
  std::mt19937 rng(52);
  const std::vector<int64_t> dims = {3, 4, 25};
  const auto x = random_floats(300, rng);
  const auto scale = random_floats(100, rng);
  ModelBuilder m(23);
  m.input("x", DType::F32, dims)
      .output("y", DType::F32)
      .initializer("scale", Tensor::from<float>(scale, {4, 25}));
  m.node("RMSNormalization", {"x", "scale"}, {"y"}, {Attr::i("axis", 1), Attr::f("epsilon", 1e-4f)});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto y = m.run({{"x", Tensor::from<float>(x, dims)}}, options(mode))[0].to_vector<float>();
    ASSERT_EQ(y.size(), 300u);
    for (size_t r = 0; r < 3; ++r) {
      double ms = 0;
      for (size_t j = 0; j < 100; ++j) ms += static_cast<double>(x[r * 100 + j]) * x[r * 100 + j];
      ms /= 100.0;
      const SpecRow s = spec_row(x.data() + r * 100, 100, 1e-4f, scale, nullptr, true);
      for (size_t j = 0; j < 100; ++j) {
        const double want = x[r * 100 + j] / std::sqrt(ms + 1e-4) * scale[j];
        EXPECT_NEAR(y[r * 100 + j], want, 1e-4 * (1 + std::fabs(want)));
        EXPECT_EQ(bits_of(y[r * 100 + j]), bits_of(s.y[j]));
      }
    }
  }
}

// --- InstanceNormalization, GroupNormalization

// Normalises blocks of `block` channels of [n, c, spatial] with parameters from `param(channel)`.
std::vector<double> reference_groups(const std::vector<float>& x, int64_t n, int64_t c, int64_t spatial,
                                     int64_t block,
                                     const std::function<std::pair<double, double>(int64_t)>& param,
                                     double epsilon) {
  std::vector<double> y(x.size());
  const int64_t cols = block * spatial;
  for (int64_t r = 0; r < n * c / block; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < cols; ++j) mean += x[static_cast<size_t>(r * cols + j)];
    mean /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) {
      const double d = x[static_cast<size_t>(r * cols + j)] - mean;
      var += d * d;
    }
    var /= static_cast<double>(cols);
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t channel = (r * block) % c + j / spatial;
      const auto [a, b] = param(channel);
      const auto at = static_cast<size_t>(r * cols + j);
      y[at] = (x[at] - mean) / std::sqrt(var + epsilon) * a + b;
    }
  }
  return y;
}

TEST(InstanceNormOp, NormalisesEachPlane) {
  std::mt19937 rng(53);
  const std::vector<int64_t> dims = {2, 3, 5, 7};
  const auto x = random_floats(210, rng);
  const std::vector<float> scale = {0.5f, -1.0f, 2.0f}, bias = {1.0f, 0.0f, -3.0f};
  ModelBuilder m(13);
  m.input("x", DType::F32, dims).output("y", DType::F32);
  m.initializer("s", Tensor::from<float>(scale, {3})).initializer("b", Tensor::from<float>(bias, {3}));
  m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}, {Attr::f("epsilon", 1e-3f)});
  const auto want = reference_groups(
      x, 2, 3, 35, 1, [&](int64_t ch) { return std::make_pair<double, double>(scale[ch], bias[ch]); }, 1e-3);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    expect_close(m.run({{"x", Tensor::from<float>(x, dims)}}, options(mode))[0].to_vector<float>(), want,
                 "instance", 1e-4);
  }
}

TEST(GroupNormOp, Opset18ParametersPerGroupAndOpset21PerChannel) {
  std::mt19937 rng(54);
  const std::vector<int64_t> dims = {2, 6, 4, 3};
  const auto x = random_floats(144, rng);
  const auto group_scale = random_floats(3, rng), group_bias = random_floats(3, rng);
  const auto channel_scale = random_floats(6, rng), channel_bias = random_floats(6, rng);
  auto run = [&](int64_t opset, const std::vector<float>& s, const std::vector<float>& b,
                 ExecutionMode mode) {
    ModelBuilder m(opset);
    m.input("x", DType::F32, dims).output("y", DType::F32);
    const int64_t params = static_cast<int64_t>(s.size());
    m.initializer("s", Tensor::from<float>(s, {params})).initializer("b", Tensor::from<float>(b, {params}));
    m.node("GroupNormalization", {"x", "s", "b"}, {"y"},
           {Attr::i("num_groups", 3), Attr::f("epsilon", 1e-4f)});
    return m.run({{"x", Tensor::from<float>(x, dims)}}, options(mode))[0].to_vector<float>();
  };
  const auto want18 = reference_groups(
      x, 2, 6, 12, 2,
      [&](int64_t ch) { return std::make_pair<double, double>(group_scale[ch / 2], group_bias[ch / 2]); },
      1e-4);
  const auto want21 = reference_groups(
      x, 2, 6, 12, 2,
      [&](int64_t ch) { return std::make_pair<double, double>(channel_scale[ch], channel_bias[ch]); }, 1e-4);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    expect_close(run(18, group_scale, group_bias, mode), want18, "opset 18", 1e-4);
    expect_close(run(21, channel_scale, channel_bias, mode), want21, "opset 21", 1e-4);
  }
  EXPECT_EQ(error_kind([&] { run(21, group_scale, group_bias, ExecutionMode::Fast); }),
            SessionError::Kind::InvalidInput);
}

// --- LogSoftmax, Hardmax

Tensor row_op(const char* op, int64_t opset, const std::vector<int64_t>& dims, std::optional<int64_t> axis,
              const std::vector<float>& x, const SessionOptions& o = {}) {
  ModelBuilder m(opset);
  m.input("x", DType::F32, dims).output("y", DType::F32);
  if (axis) {
    m.node(op, {"x"}, {"y"}, {Attr::i("axis", *axis)});
  } else {
    m.node(op, {"x"}, {"y"});
  }
  return m.run({{"x", Tensor::from<float>(x, dims)}}, o)[0];
}

TEST(LogSoftmaxOp, MatchesReferenceAlongAnyAxis) {
  std::mt19937 rng(55);
  const std::vector<int64_t> dims = {3, 300, 5};
  const auto x = random_floats(4500, rng, 4.0f);
  auto reference = [&](int64_t outer, int64_t n, int64_t inner) {
    std::vector<double> y(x.size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t j) { return static_cast<size_t>((o * n + j) * inner + i); };
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < n; ++j) m = std::max(m, static_cast<double>(x[at(j)]));
        for (int64_t j = 0; j < n; ++j) s += std::exp(x[at(j)] - m);
        for (int64_t j = 0; j < n; ++j) y[at(j)] = x[at(j)] - m - std::log(s);
      }
    }
    return y;
  };
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    expect_close(row_op("LogSoftmax", 13, dims, 1, x, options(mode)).to_vector<float>(), reference(3, 300, 5),
                 "axis 1");
    expect_close(row_op("LogSoftmax", 13, dims, std::nullopt, x, options(mode)).to_vector<float>(),
                 reference(900, 5, 1), "default");
    expect_close(row_op("LogSoftmax", 11, dims, std::nullopt, x, options(mode)).to_vector<float>(),
                 reference(3, 1500, 1), "opset 11");
  }
  // Exact bits agree on every path and thread count.
  const Tensor first =
      row_op("LogSoftmax", 13, dims, 1, x, options(ExecutionMode::Exact, kernel_paths().front(), 1));
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      EXPECT_TRUE(same_bytes(
          row_op("LogSoftmax", 13, dims, 1, x, options(ExecutionMode::Exact, path, threads)), first))
          << path << " threads " << threads;
    }
  }
}

TEST(LogSoftmaxOp, SpecialRows) {
  const std::vector<float> x = {1, kNaN, 2, 3, kInf, 0, -kInf, -kInf, -kInf, 0, 0, -kInf};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto y = row_op("LogSoftmax", 13, {4, 3}, -1, x, options(mode)).to_vector<float>();
    for (size_t i = 0; i < 9; ++i) EXPECT_EQ(bits_of(y[i]), kCanonicalNaN) << i;
    EXPECT_NEAR(y[9], -std::log(2.0), 1e-6);
    EXPECT_NEAR(y[10], -std::log(2.0), 1e-6);
    EXPECT_EQ(y[11], -kInf);
  }
}

TEST(HardmaxOp, FirstMaximumAndNaNRows) {
  const std::vector<float> x = {1, 3, 3, kNaN, 5, 1, 2, 0, -1};  // [3, 3]
  EXPECT_EQ(row_op("Hardmax", 13, {3, 3}, -1, x).to_vector<float>(),
            (std::vector<float>{0, 1, 0, 0, 0, 0, 1, 0, 0}));
  // Along axis 0: column 0 holds a NaN.
  EXPECT_EQ(row_op("Hardmax", 13, {3, 3}, 0, x).to_vector<float>(),
            (std::vector<float>{0, 0, 1, 0, 1, 0, 0, 0, 0}));
  // Opset 11 with axis 0 treats the whole tensor as one row, which holds a NaN.
  EXPECT_EQ(row_op("Hardmax", 11, {3, 3}, 0, x).to_vector<float>(), std::vector<float>(9, 0.0f));
  EXPECT_EQ(row_op("Hardmax", 11, {3, 3}, 0, {1, 3, 3, 0, 5, 1, 5, 0, -1}).to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0, 0}));
}

TEST(Norm2, BackendNodeCases) {
  const int passed =
      check_backend_cases({"test_layer_normalization", "test_instancenorm", "test_logsoftmax", "test_hardmax",
                           "test_group_normalization", "test_rms_normalization"});
  if (std::filesystem::is_directory(backend_node_dir())) EXPECT_GT(passed, 100);
}

}  // namespace
}  // namespace onemodel::test

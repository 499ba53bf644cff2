// The reductions other than ReduceMax, ArgMax/ArgMin and CumSum through Session, against references written
// here from ops-norms.md: values within a tolerance of a double-precision reference for every axis subset;
// exact bits equal to the spec's order (canonical 16-partial sum when the last run is reduced, a sequential
// sum from +0 otherwise) on every kernel path and thread count; integer wrap-around and truncating means;
// empty reductions; noop_with_empty_axes; NaN and infinities; ArgMax/ArgMin ties and select_last_index;
// CumSum directions and its axis check. Plus the ONNX backend node cases.
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
const float kNaN = __builtin_bit_cast(float, 0xFFC00001u);  // a negative NaN with a payload

int64_t count_of(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

// A one-node reduction model. Axes go in the attribute before `axes_input_opset` and in an initializer from
// it on; nullopt omits them.
template <class T>
Tensor reduce(std::string_view op, int64_t opset, const std::vector<int64_t>& dims, const std::vector<T>& x,
              std::optional<std::vector<int64_t>> axes, int64_t keepdims = 1, int64_t noop = 0,
              const SessionOptions& o = {}) {
  const int64_t axes_input_opset = op == "ReduceSum" ? 13 : 18;
  ModelBuilder m(opset);
  m.input("x", dtype_of<T>(), dims).output("y", dtype_of<T>());
  std::vector<Attr> attrs = {Attr::i("keepdims", keepdims)};
  const bool input = opset >= axes_input_opset;
  if (input) attrs.push_back(Attr::i("noop_with_empty_axes", noop));
  if (axes && input)
    m.initializer("axes", Tensor::from<int64_t>(*axes, {static_cast<int64_t>(axes->size())}));
  if (axes && !input) attrs.push_back(Attr::ints("axes", *axes));
  if (axes && input) {
    m.node(op, {"x", "axes"}, {"y"}, attrs);
  } else {
    m.node(op, {"x"}, {"y"}, attrs);
  }
  return m.run({{"x", Tensor::from<T>(x, dims)}}, o)[0];
}

// The elements reducing into each output, in row-major order (the spec's sequence).
std::vector<std::vector<int64_t>> sequences(const std::vector<int64_t>& dims, uint32_t mask) {
  int64_t outputs = 1;
  for (size_t a = 0; a < dims.size(); ++a) {
    if (!((mask >> a) & 1u)) outputs *= dims[a];
  }
  std::vector<std::vector<int64_t>> seq(static_cast<size_t>(outputs));
  for (int64_t flat = 0; flat < count_of(dims); ++flat) {
    int64_t rest = flat, out = 0, scale = 1;
    for (size_t a = dims.size(); a-- > 0;) {
      const int64_t idx = rest % dims[a];
      rest /= dims[a];
      if (!((mask >> a) & 1u)) {
        out += idx * scale;
        scale *= dims[a];
      }
    }
    seq[static_cast<size_t>(out)].push_back(flat);
  }
  return seq;
}

// The spec's float sum of one sequence: canonical 16-partial sum in the row layout, sequential otherwise.
float spec_sum(const std::vector<float>& terms, bool row_layout) {
  if (!row_layout) {
    float s = 0.0f;
    for (float t : terms) s = s + t;
    return s;
  }
  float p[16] = {};
  for (size_t j = 0; j < terms.size(); ++j) p[j % 16] = p[j % 16] + terms[j];
  for (int half = 8; half >= 1; half /= 2) {
    for (int t = 0; t < half; ++t) p[t] = p[t] + p[t + half];
  }
  return p[0];
}

// The row layout: the last axis of extent above one is reduced.
bool row_layout(const std::vector<int64_t>& dims, uint32_t mask) {
  for (size_t a = dims.size(); a-- > 0;) {
    if (dims[a] != 1) return (mask >> a) & 1u;
  }
  return true;
}

std::vector<float> random_floats(size_t n, std::mt19937& rng, float lo = -3.0f, float hi = 3.0f) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

std::vector<int64_t> axes_of(uint32_t mask, int rank) {
  std::vector<int64_t> axes;
  for (int a = 0; a < rank; ++a) {
    if ((mask >> a) & 1u) axes.push_back(a % 2 == 0 ? a - rank : a);  // mix negative and positive axes
  }
  return axes;
}

struct FloatCase {
  const char* op;
  std::function<double(const std::vector<double>&)> reference;
  float lo = -3.0f;  // input range
};

double sum_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

TEST(ReduceOps, EveryAxisSubsetMatchesADoubleReference) {
  const std::vector<FloatCase> cases = {
      {"ReduceSum", sum_of},
      {"ReduceMean", [](const std::vector<double>& v) { return sum_of(v) / static_cast<double>(v.size()); }},
      {"ReduceMin", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }},
      {"ReduceProd",
       [](const std::vector<double>& v) {
         return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<>());
       },
       0.5f},
      {"ReduceL1",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double x : v) s += std::fabs(x);
         return s;
       }},
      {"ReduceL2",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double x : v) s += x * x;
         return std::sqrt(s);
       }},
      {"ReduceSumSquare",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double x : v) s += x * x;
         return s;
       }},
      {"ReduceLogSum", [](const std::vector<double>& v) { return std::log(sum_of(v)); }, 0.1f},
      {"ReduceLogSumExp",
       [](const std::vector<double>& v) {
         double s = 0;
         for (double x : v) s += std::exp(x);
         return std::log(s);
       }},
  };
  std::mt19937 rng(41);
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{3, 4, 5}, {2, 1, 3, 37}, {40, 3}}) {
    const int rank = static_cast<int>(dims.size());
    for (const FloatCase& c : cases) {
      // Products stay moderate with factors in [0.5, 1.5].
      const float hi = std::string_view(c.op) == "ReduceProd" ? 1.5f : 3.0f;
      const auto x = random_floats(static_cast<size_t>(count_of(dims)), rng, c.lo, hi);
      for (uint32_t mask = 1; mask < (1u << rank); ++mask) {
        const auto seq = sequences(dims, mask);
        for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
          const auto y =
              reduce<float>(c.op, 18, dims, x, axes_of(mask, rank), 0, 0, options(mode)).to_vector<float>();
          ASSERT_EQ(y.size(), seq.size());
          for (size_t o = 0; o < y.size(); ++o) {
            std::vector<double> v;
            for (int64_t i : seq[o]) v.push_back(x[static_cast<size_t>(i)]);
            const double want = c.reference(v);
            EXPECT_NEAR(y[o], want, 1e-5 + 1e-5 * std::fabs(want))
                << c.op << " mask " << mask << " output " << o;
          }
        }
      }
    }
  }
}

TEST(ReduceOps, ExactSumsFollowTheSpecOrderOnEveryPathAndThreadCount) {
  std::mt19937 rng(42);
  // Large enough for several chunks; values of mixed magnitude so that the order shows in the bits.
  for (const auto& [dims, mask] : std::vector<std::pair<std::vector<int64_t>, uint32_t>>{
           {{3, 70001}, 2u}, {{70001, 3}, 1u}, {{5, 300, 41}, 5u}, {{5, 300, 41}, 2u}, {{9, 1, 2000}, 6u}}) {
    auto x = random_floats(static_cast<size_t>(count_of(dims)), rng);
    for (size_t i = 0; i < x.size(); i += 7) x[i] *= 4096.0f;
    const auto seq = sequences(dims, mask);
    const bool rows = row_layout(dims, mask);
    std::vector<float> sum(seq.size()), mean(seq.size()), square(seq.size());
    for (size_t o = 0; o < seq.size(); ++o) {
      std::vector<float> t, sq;
      for (int64_t i : seq[o]) {
        t.push_back(x[static_cast<size_t>(i)]);
        sq.push_back(x[static_cast<size_t>(i)] * x[static_cast<size_t>(i)]);
      }
      sum[o] = spec_sum(t, rows);
      mean[o] = sum[o] / static_cast<float>(t.size());
      square[o] = spec_sum(sq, rows);
    }
    const int rank = static_cast<int>(dims.size());
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const SessionOptions o = options(ExecutionMode::Exact, path, threads);
        for (const auto& [op, want] : std::vector<std::pair<const char*, const std::vector<float>*>>{
                 {"ReduceSum", &sum}, {"ReduceMean", &mean}, {"ReduceSumSquare", &square}}) {
          const auto y = reduce<float>(op, 18, dims, x, axes_of(mask, rank), 1, 0, o).to_vector<float>();
          ASSERT_EQ(y.size(), want->size());
          for (size_t i = 0; i < y.size(); ++i) {
            ASSERT_EQ(bits_of(y[i]), bits_of((*want)[i]))
                << op << " " << path << " threads " << threads << " " << i;
          }
        }
      }
    }
  }
}

TEST(ReduceOps, AttributeAndInputAxesAgree) {
  std::mt19937 rng(43);
  const std::vector<int64_t> dims = {4, 6, 5};
  const auto x = random_floats(120, rng);
  const auto a = reduce<float>("ReduceSum", 11, dims, x, std::vector<int64_t>{0, 2});
  const auto b = reduce<float>("ReduceSum", 13, dims, x, std::vector<int64_t>{0, -1});
  EXPECT_EQ(a.shape(), (std::vector<int64_t>{1, 6, 1}));
  EXPECT_TRUE(same_bytes(a, b));
  const auto c = reduce<float>("ReduceMean", 13, dims, x, std::vector<int64_t>{1});
  const auto d = reduce<float>("ReduceMean", 18, dims, x, std::vector<int64_t>{1});
  EXPECT_TRUE(same_bytes(c, d));
}

TEST(ReduceOps, IntegersWrapAndMeansTruncate) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(reduce<int32_t>("ReduceSum", 13, {3}, {big, 2, 3}, std::nullopt, 0).to_vector<int32_t>(),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min() + 4}));
  EXPECT_EQ(reduce<int8_t>("ReduceProd", 18, {3}, {16, 16, 3}, std::nullopt, 0).to_vector<int8_t>(),
            (std::vector<int8_t>{0}));  // 768 mod 256
  EXPECT_EQ(reduce<int8_t>("ReduceProd", 18, {2}, {-128, -1}, std::nullopt, 0).to_vector<int8_t>(),
            (std::vector<int8_t>{-128}));
  EXPECT_EQ(reduce<int32_t>("ReduceL1", 18, {2}, {std::numeric_limits<int32_t>::min(), 0}, std::nullopt, 0)
                .to_vector<int32_t>(),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(reduce<int64_t>("ReduceMean", 18, {2, 2}, {-7, 4, 0, 3}, std::vector<int64_t>{0}, 0)
                .to_vector<int64_t>(),
            (std::vector<int64_t>{-3, 3}));
  // The count of 300 does not fit int8; the mean still divides by 300.
  std::vector<int8_t> many(300, 1);
  many[0] = 0;
  EXPECT_EQ(reduce<int8_t>("ReduceSum", 13, {300}, many, std::nullopt, 0).to_vector<int8_t>(),
            (std::vector<int8_t>{static_cast<int8_t>(299 - 256)}));
  EXPECT_EQ(reduce<uint64_t>("ReduceSumSquare", 18, {2}, {uint64_t{1} << 32, 3}, std::nullopt, 0)
                .to_vector<uint64_t>(),
            (std::vector<uint64_t>{9}));
  EXPECT_EQ(reduce<uint8_t>("ReduceMin", 18, {2, 3}, {5, 1, 9, 2, 7, 0}, std::vector<int64_t>{1}, 0)
                .to_vector<uint8_t>(),
            (std::vector<uint8_t>{1, 0}));
}

TEST(ReduceOps, Float64FollowsTheSameOrder) {
  std::mt19937 rng(44);
  const auto xf = random_floats(3 * 50, rng);
  const std::vector<double> x(xf.begin(), xf.end());
  const auto y = reduce<double>("ReduceSum", 13, {3, 50}, x, std::vector<int64_t>{1}, 0).to_vector<double>();
  for (int r = 0; r < 3; ++r) {
    double p[16] = {};
    for (int j = 0; j < 50; ++j) p[j % 16] += x[static_cast<size_t>(r * 50 + j)];
    for (int half = 8; half >= 1; half /= 2) {
      for (int t = 0; t < half; ++t) p[t] += p[t + half];
    }
    EXPECT_EQ(y[static_cast<size_t>(r)], p[0]);
  }
  const auto l2 = reduce<double>("ReduceL2", 18, {2}, {3.0, 4.0}, std::nullopt, 0).to_vector<double>();
  EXPECT_EQ(l2, (std::vector<double>{5.0}));
}

TEST(ReduceOps, EmptyReductions) {
  const std::vector<int64_t> dims = {2, 0, 3};
  const std::vector<float> none;
  auto empty = [&](const char* op) {
    const auto y = reduce<float>(op, 18, dims, none, std::vector<int64_t>{1}, 0);
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3})) << op;
    return y.to_vector<float>();
  };
  EXPECT_EQ(empty("ReduceSum"), std::vector<float>(6, 0.0f));
  EXPECT_EQ(empty("ReduceMean"), std::vector<float>(6, 0.0f));
  EXPECT_EQ(empty("ReduceProd"), std::vector<float>(6, 1.0f));
  EXPECT_EQ(empty("ReduceMin"), std::vector<float>(6, kInf));
  EXPECT_EQ(empty("ReduceL2"), std::vector<float>(6, 0.0f));
  EXPECT_EQ(empty("ReduceLogSum"), std::vector<float>(6, -kInf));
  EXPECT_EQ(empty("ReduceLogSumExp"), std::vector<float>(6, -kInf));
  EXPECT_EQ(reduce<int32_t>("ReduceMin", 18, dims, {}, std::vector<int64_t>{1}, 0).to_vector<int32_t>(),
            std::vector<int32_t>(6, std::numeric_limits<int32_t>::max()));
  // Reducing the other axes of an empty tensor gives an empty output.
  EXPECT_EQ(reduce<float>("ReduceSum", 18, dims, none, std::vector<int64_t>{0}, 0).shape(),
            (std::vector<int64_t>{0, 3}));
}

TEST(ReduceOps, NoopWithEmptyAxesAppliesTheOperationPerElement) {
  const std::vector<float> x = {-2.0f, 0.5f, 4.0f};
  auto noop = [&](const char* op) {
    const auto y = reduce<float>(op, 18, {3}, x, std::vector<int64_t>{}, 1, 1);
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{3})) << op;
    return y.to_vector<float>();
  };
  EXPECT_EQ(noop("ReduceSum"), x);
  EXPECT_EQ(noop("ReduceSumSquare"), (std::vector<float>{4.0f, 0.25f, 16.0f}));
  EXPECT_EQ(noop("ReduceL1"), (std::vector<float>{2.0f, 0.5f, 4.0f}));
  EXPECT_EQ(noop("ReduceL2"), (std::vector<float>{2.0f, 0.5f, 4.0f}));
  const auto log_sum = noop("ReduceLogSum");
  EXPECT_EQ(bits_of(log_sum[0]), kCanonicalNaN);  // log of a negative number
  EXPECT_NEAR(log_sum[1], std::log(0.5), 1e-7);
  EXPECT_NEAR(log_sum[2], std::log(4.0), 1e-7);
  EXPECT_EQ(noop("ReduceLogSumExp"), x);
  // Without noop, empty axes reduce everything.
  EXPECT_EQ(reduce<float>("ReduceSum", 18, {3}, x, std::vector<int64_t>{}, 1, 0).to_vector<float>(),
            (std::vector<float>{2.5f}));
}

TEST(ReduceOps, NaNAndInfinities) {
  // Sums propagate NaN canonically.
  const auto s = reduce<float>("ReduceSum", 13, {2, 3}, {1, kNaN, 2, 3, 4, 5}, std::vector<int64_t>{1}, 0, 0,
                               options(ExecutionMode::Exact))
                     .to_vector<float>();
  EXPECT_EQ(bits_of(s[0]), kCanonicalNaN);
  EXPECT_EQ(s[1], 12.0f);
  // ReduceMin: a NaN wins only when first.
  const auto m =
      reduce<float>("ReduceMin", 18, {2, 3}, {kNaN, -1, 2, 3, kNaN, -4}, std::vector<int64_t>{1}, 0)
          .to_vector<float>();
  EXPECT_EQ(bits_of(m[0]), kCanonicalNaN);
  EXPECT_EQ(m[1], -4.0f);
  // The same in the column layout (reducing the leading axis).
  const auto mc =
      reduce<float>("ReduceMin", 18, {3, 2}, {kNaN, 3, -1, kNaN, 2, -4}, std::vector<int64_t>{0}, 0)
          .to_vector<float>();
  EXPECT_EQ(bits_of(mc[0]), kCanonicalNaN);
  EXPECT_EQ(mc[1], -4.0f);
  // LogSumExp: infinite maxima are returned as they are; any NaN gives NaN.
  const auto lse =
      reduce<float>("ReduceLogSumExp", 18, {3, 2}, {kInf, 1, 2, -kInf, 3, kNaN}, std::vector<int64_t>{1}, 0)
          .to_vector<float>();
  EXPECT_EQ(lse[0], kInf);
  EXPECT_EQ(lse[1], 2.0f);  // 2 + log(1 + exp(-inf))
  EXPECT_EQ(bits_of(lse[2]), kCanonicalNaN);
  const auto neg =
      reduce<float>("ReduceLogSumExp", 18, {2}, {-kInf, -kInf}, std::nullopt, 0).to_vector<float>();
  EXPECT_EQ(neg[0], -kInf);
  // A large maximum does not overflow.
  const auto large =
      reduce<float>("ReduceLogSumExp", 18, {2}, {1000.0f, 1000.0f}, std::nullopt, 0).to_vector<float>();
  EXPECT_NEAR(large[0], 1000.0 + std::log(2.0), 1e-3);
}

TEST(ReduceOps, AxesComputedAtRunTime) {
  ModelBuilder m(18);
  m.input("x", DType::F32, {2, 3}).input("axes", DType::I64, {1}).output("y", DType::F32);
  m.node("ReduceSum", {"x", "axes"}, {"y"}, {Attr::i("keepdims", 0)});
  Session s = m.session();
  const Tensor x = Tensor::from<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto y0 = s.run({{"x", x}, {"axes", Tensor::from<int64_t>({0}, {1})}})[0];
  EXPECT_EQ(y0.to_vector<float>(), (std::vector<float>{5, 7, 9}));
  auto y1 = s.run({{"x", x}, {"axes", Tensor::from<int64_t>({-1}, {1})}})[0];
  EXPECT_EQ(y1.to_vector<float>(), (std::vector<float>{6, 15}));
  EXPECT_EQ(error_kind([&] {
              s.run({{"x", x}, {"axes", Tensor::from<int64_t>({2}, {1})}});
            }),
            SessionError::Kind::InvalidInput);
}

// float64 ReduceLogSum/ReduceLogSumExp use the platform's exp and log: served in fast mode, refused in exact
// mode (ops-coverage.md).
TEST(ReduceOps, Float64LogReductionsAreFastOnly) {
  const std::vector<double> x = {1.0, 2.0, -1.5, 1000.0, 1000.0, 999.0};
  const auto lse =
      reduce<double>("ReduceLogSumExp", 18, {2, 3}, x, std::vector<int64_t>{1}, 0).to_vector<double>();
  ASSERT_EQ(lse.size(), 2u);
  EXPECT_NEAR(lse[0], std::log(std::exp(1.0) + std::exp(2.0) + std::exp(-1.5)), 1e-14);
  EXPECT_NEAR(lse[1], 1000.0 + std::log(2.0 + std::exp(-1.0)), 1e-12);  // shifted by the maximum: no overflow
  const auto ls = reduce<double>("ReduceLogSum", 13, {2}, {2.0, 3.0}, std::nullopt, 0).to_vector<double>();
  EXPECT_EQ(ls, (std::vector<double>{std::log(5.0)}));
  for (const char* op : {"ReduceLogSum", "ReduceLogSumExp"}) {
    EXPECT_EQ(error_kind([op] {
                reduce<double>(op, 18, {2}, {1.0, 2.0}, std::nullopt, 1, 0, options(ExecutionMode::Exact));
              }),
              SessionError::Kind::ExactModeUnavailable)
        << op;
  }
}

TEST(ReduceOps, UnservedTypesAreUnsupported) {
  EXPECT_EQ(error_kind([] {
              reduce<int32_t>("ReduceL2", 18, {2}, {1, 2}, std::nullopt);
            }),
            SessionError::Kind::Unsupported);
}

// --- ArgMax, ArgMin

template <class T>
Tensor arg(const char* op, const std::vector<int64_t>& dims, const std::vector<T>& x, int64_t axis,
           int64_t keep, int64_t last, int64_t opset = 13) {
  ModelBuilder m(opset);
  m.input("x", dtype_of<T>(), dims).output("y", DType::I64);
  std::vector<Attr> attrs = {Attr::i("axis", axis), Attr::i("keepdims", keep)};
  if (opset >= 12) attrs.push_back(Attr::i("select_last_index", last));
  m.node(op, {"x"}, {"y"}, attrs);
  return m.run({{"x", Tensor::from<T>(x, dims)}})[0];
}

TEST(ArgReduceOps, TiesAndSelectLastIndex) {
  const std::vector<float> x = {1, 3, 3, 0, 2, 2, 5, 0, 0};  // [3, 3]
  EXPECT_EQ(arg<float>("ArgMax", {3, 3}, x, 1, 0, 0).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(arg<float>("ArgMax", {3, 3}, x, 1, 0, 1).to_vector<int64_t>(), (std::vector<int64_t>{2, 2, 0}));
  EXPECT_EQ(arg<float>("ArgMin", {3, 3}, x, 1, 1, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(arg<float>("ArgMin", {3, 3}, x, 1, 1, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 2}));
  const auto col = arg<float>("ArgMax", {3, 3}, x, 0, 1, 0);
  EXPECT_EQ(col.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(col.to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 0}));
  EXPECT_EQ(arg<float>("ArgMin", {3, 3}, x, -2, 0, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 2}));
  // Opset 11 has no select_last_index: the first index wins.
  EXPECT_EQ(arg<float>("ArgMax", {3, 3}, x, 1, 0, 0, 11).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1, 0}));
}

TEST(ArgReduceOps, NaNWinsOnlyWhenFirst) {
  const std::vector<float> x = {kNaN, 1, 2, 0, kNaN, 4, 0, 9, kNaN};
  EXPECT_EQ(arg<float>("ArgMax", {3, 3}, x, 1, 0, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(arg<float>("ArgMin", {3, 3}, x, 1, 0, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0}));
}

TEST(ArgReduceOps, IntegerTypesAndEmptyAxis) {
  EXPECT_EQ(arg<int8_t>("ArgMin", {4}, {3, -128, 5, -128}, 0, 0, 0).to_vector<int64_t>(),
            (std::vector<int64_t>{1}));
  EXPECT_EQ(arg<uint64_t>("ArgMax", {3}, {1, ~uint64_t{0}, 2}, 0, 0, 0).to_vector<int64_t>(),
            (std::vector<int64_t>{1}));
  EXPECT_EQ(arg<int16_t>("ArgMax", {2, 2}, {-1, -1, 7, 8}, 1, 0, 1).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1}));
  const auto empty = arg<float>("ArgMax", {2, 0}, {}, 1, 1, 0);
  EXPECT_EQ(empty.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(empty.to_vector<int64_t>(), (std::vector<int64_t>{0, 0}));
}

// --- CumSum

template <class T>
Tensor cum_sum(const std::vector<int64_t>& dims, const std::vector<T>& x, int64_t axis, int64_t exclusive,
               int64_t reverse) {
  ModelBuilder m(14);
  m.input("x", dtype_of<T>(), dims).input("axis", DType::I32, {}).output("y", dtype_of<T>());
  m.node("CumSum", {"x", "axis"}, {"y"}, {Attr::i("exclusive", exclusive), Attr::i("reverse", reverse)});
  return m.run({{"x", Tensor::from<T>(x, dims)},
                {"axis", Tensor::from<int32_t>({static_cast<int32_t>(axis)}, {})}})[0];
}

TEST(CumSumOp, DirectionsAndExclusive) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};  // [2, 3]
  EXPECT_EQ(cum_sum<float>({2, 3}, x, 1, 0, 0).to_vector<float>(), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(cum_sum<float>({2, 3}, x, -1, 1, 0).to_vector<float>(), (std::vector<float>{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(cum_sum<float>({2, 3}, x, 1, 0, 1).to_vector<float>(), (std::vector<float>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(cum_sum<float>({2, 3}, x, 1, 1, 1).to_vector<float>(), (std::vector<float>{5, 3, 0, 11, 6, 0}));
  EXPECT_EQ(cum_sum<float>({2, 3}, x, 0, 0, 0).to_vector<float>(), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(cum_sum<float>({2, 3}, x, -2, 1, 1).to_vector<float>(), (std::vector<float>{4, 5, 6, 0, 0, 0}));
}

TEST(CumSumOp, FloatsAddInSequenceAndIntegersWrap) {
  // 2^24 + 1 rounds back to 2^24, so the order shows: forward keeps the 1 only after -2^24 cancels 2^24,
  // reverse adds it first and loses it.
  const float big = 16777216.0f;
  EXPECT_EQ(cum_sum<float>({3}, {big, -big, 1}, 0, 0, 0).to_vector<float>(), (std::vector<float>{big, 0, 1}));
  EXPECT_EQ(cum_sum<float>({3}, {-big, big, 1}, 0, 0, 1).to_vector<float>(), (std::vector<float>{0, big, 1}));
  EXPECT_EQ(cum_sum<float>({3}, {big, 1, -big}, 0, 0, 0).to_vector<float>(),
            (std::vector<float>{big, big, 0}));
  const auto nan = cum_sum<float>({3}, {1, kNaN, 2}, 0, 0, 0).to_vector<float>();
  EXPECT_EQ(nan[0], 1.0f);
  EXPECT_EQ(bits_of(nan[1]), kCanonicalNaN);
  EXPECT_EQ(bits_of(nan[2]), kCanonicalNaN);
  const int32_t top = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(cum_sum<int32_t>({2}, {top, 1}, 0, 0, 0).to_vector<int32_t>(),
            (std::vector<int32_t>{top, std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(cum_sum<double>({2}, {0.5, 0.25}, 0, 0, 0).to_vector<double>(), (std::vector<double>{0.5, 0.75}));
  EXPECT_EQ(cum_sum<float>({0}, {}, 0, 0, 0).shape(), (std::vector<int64_t>{0}));
}

TEST(CumSumOp, InclusiveStartsFromTheFirstElement) {
  // Found by the oracle cases: y[0] = x[0], so -0 stays -0 (0 + -0 would be +0); exclusive starts at +0.
  const auto inclusive = cum_sum<float>({2}, {-0.0f, -0.0f}, 0, 0, 0).to_vector<float>();
  EXPECT_EQ(bits_of(inclusive[0]), 0x80000000u);
  EXPECT_EQ(bits_of(inclusive[1]), 0x80000000u);
  const auto reversed = cum_sum<float>({2}, {1.0f, -0.0f}, 0, 0, 1).to_vector<float>();
  EXPECT_EQ(bits_of(reversed[1]), 0x80000000u);
  const auto exclusive = cum_sum<float>({2}, {-0.0f, -0.0f}, 0, 1, 0).to_vector<float>();
  EXPECT_EQ(bits_of(exclusive[0]), 0u);
  EXPECT_EQ(bits_of(exclusive[1]), 0u);
}

TEST(CumSumOp, AxisOutsideTheRankIsInvalidInput) {
  EXPECT_EQ(error_kind([] {
              cum_sum<float>({2, 3}, {1, 2, 3, 4, 5, 6}, 2, 0, 0);
            }),
            SessionError::Kind::InvalidInput);
  EXPECT_EQ(error_kind([] {
              cum_sum<float>({2, 3}, {1, 2, 3, 4, 5, 6}, -3, 0, 0);
            }),
            SessionError::Kind::InvalidInput);
}

TEST(Reduce2, BackendNodeCases) {
  // The ReduceLogSumExp cases are float64, which the spec leaves Unsupported; ReduceMax has its own test.
  const int passed = check_backend_cases({"test_reduce_", "test_argmax", "test_argmin", "test_cumsum"},
                                         {"test_reduce_max", "test_reduce_log_sum_exp"});
  if (std::filesystem::is_directory(backend_node_dir())) EXPECT_GT(passed, 100);
}

}  // namespace
}  // namespace onemodel::test

// Softmax and ReduceMax through Session. Softmax: the opset-13 axis semantics equal moving the axis last by
// hand, opset 11 normalises the flattened rows, values match a double-precision reference, exact bits agree
// on every path, NaN rows are canonical. ReduceMax: a sequential scan in row-major order (NaN wins only when
// first), empty reductions, keepdims, noop_with_empty_axes and axes as a run-time input. Plus the ONNX
// backend node cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

int64_t count_of(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

std::vector<float> random_floats(size_t n, std::mt19937& rng, float spread = 3.0f) {
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  return v;
}

Tensor softmax(int64_t opset, const std::vector<int64_t>& dims, std::optional<int64_t> axis,
               const std::vector<float>& x, const SessionOptions& o = {}) {
  ModelBuilder m(opset);
  m.input("x", DType::F32, dims).output("y", DType::F32);
  if (axis) {
    m.node("Softmax", {"x"}, {"y"}, {Attr::i("axis", *axis)});
  } else {
    m.node("Softmax", {"x"}, {"y"});
  }
  return m.run({{"x", Tensor::from<float>(x, dims)}}, o)[0];
}

// Softmax in double over groups [outer, n, inner] along n.
std::vector<double> reference_softmax(const std::vector<float>& x, int64_t outer, int64_t n, int64_t inner) {
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return static_cast<size_t>((o * n + j) * inner + i); };
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j) m = std::max(m, static_cast<double>(x[at(j)]));
      for (int64_t j = 0; j < n; ++j) sum += std::exp(x[at(j)] - m);
      for (int64_t j = 0; j < n; ++j) y[at(j)] = std::exp(x[at(j)] - m) / sum;
    }
  }
  return y;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-6 + 1e-5 * std::fabs(want[i])) << what << " element " << i;
  }
}

TEST(SoftmaxOp, Opset13NormalisesOneAxis) {
  std::mt19937 rng(21);
  const std::vector<int64_t> dims = {3, 4, 37};
  const auto x = random_floats(static_cast<size_t>(count_of(dims)), rng);
  for (int64_t axis : {0, 1, 2, -1, -2, -3}) {
    const auto a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    const int64_t outer = count_of({dims.begin(), dims.begin() + static_cast<int64_t>(a)});
    const int64_t inner = count_of({dims.begin() + static_cast<int64_t>(a) + 1, dims.end()});
    const auto want = reference_softmax(x, outer, dims[a], inner);
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      expect_close(softmax(13, dims, axis, x, options(mode)).to_vector<float>(), want,
                   "axis " + std::to_string(axis));
    }
  }
  // The default axis is the last.
  expect_close(softmax(13, dims, std::nullopt, x).to_vector<float>(), reference_softmax(x, 12, 37, 1),
               "default");
}

TEST(SoftmaxOp, Opset11NormalisesTheFlattenedRows) {
  std::mt19937 rng(22);
  const std::vector<int64_t> dims = {2, 3, 4};
  const auto x = random_floats(24, rng);
  expect_close(softmax(11, dims, std::nullopt, x).to_vector<float>(), reference_softmax(x, 2, 12, 1),
               "default");
  expect_close(softmax(11, dims, 0, x).to_vector<float>(), reference_softmax(x, 1, 24, 1), "axis 0");
  expect_close(softmax(11, dims, -1, x).to_vector<float>(), reference_softmax(x, 6, 4, 1), "axis -1");
  expect_close(softmax(11, dims, 3, x).to_vector<float>(), reference_softmax(x, 24, 1, 1), "axis 3");
}

TEST(SoftmaxOp, ExactNonLastAxisEqualsMovingTheAxisLastByHand) {
  std::mt19937 rng(23);
  const int64_t a = 5, n = 19, b = 7;  // softmax over n of [a, n, b]
  const auto x = random_floats(static_cast<size_t>(a * n * b), rng);
  std::vector<float> moved(x.size());  // [a, b, n]
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t k = 0; k < b; ++k)
        moved[static_cast<size_t>((i * b + k) * n + j)] = x[static_cast<size_t>((i * n + j) * b + k)];
    }
  }
  std::vector<uint32_t> first;
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const auto rows =
          softmax(13, {a, b, n}, -1, moved, options(ExecutionMode::Exact, path, threads)).to_vector<float>();
      const auto got =
          softmax(13, {a, n, b}, 1, x, options(ExecutionMode::Exact, path, threads)).to_vector<float>();
      std::vector<uint32_t> bits;
      for (int64_t i = 0; i < a; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t k = 0; k < b; ++k) {
            const size_t at = static_cast<size_t>((i * n + j) * b + k);
            EXPECT_EQ(bits_of(got[at]), bits_of(rows[static_cast<size_t>((i * b + k) * n + j)])) << path;
            bits.push_back(bits_of(got[at]));
          }
        }
      }
      if (first.empty()) first = bits;
      EXPECT_EQ(bits, first) << path << " threads " << threads << " differs from " << kernel_paths().front();
    }
  }
}

TEST(SoftmaxOp, ExactRowsWithNaNOrInfinityAreCanonicalNaN) {
  const float nan = __builtin_bit_cast(float, 0xFFC00001u);  // a negative NaN with a payload
  const std::vector<float> x = {1, nan, 2, 3, 1, kInf, -kInf, -kInf, -kInf, 0, 1, -kInf};
  const auto y = softmax(13, {4, 3}, -1, x, options(ExecutionMode::Exact)).to_vector<float>();
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(bits_of(y[i]), kCanonicalNaN) << i;
  EXPECT_GT(y[9], 0.0f);
  EXPECT_EQ(y[11], 0.0f);  // -inf in an otherwise normal row has weight 0
}

TEST(SoftmaxOp, WorksInPlaceAfterAnotherOperator) {
  // Flatten is a view and Transpose a copy, so Softmax's input dies at Softmax and may share its storage.
  std::mt19937 rng(24);
  const auto x = random_floats(6 * 10, rng);
  ModelBuilder m(13);
  m.input("x", DType::F32, {6, 10}).output("y", DType::F32);
  m.node("Transpose", {"x"}, {"t"}, {Attr::ints("perm", {1, 0})})
      .node("Softmax", {"t"}, {"y"}, {Attr::i("axis", 0)});
  const auto y = m.run({{"x", Tensor::from<float>(x, {6, 10})}})[0].to_vector<float>();
  // Softmax over axis 0 of x^T is softmax over the rows of x, transposed.
  const auto rows = reference_softmax(x, 6, 10, 1);
  std::vector<double> want(60);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 10; ++j) want[static_cast<size_t>(j * 6 + i)] = rows[static_cast<size_t>(i * 10 + j)];
  }
  expect_close(y, want, "in place");
}

// --- ReduceMax

// The definition: for each output, scan the reduced elements in row-major order; the running value starts as
// the first and is replaced only by a strictly greater one. Empty: -inf / lowest. NaN canonical.
template <class T>
std::vector<T> reference_max(const std::vector<T>& x, const std::vector<int64_t>& dims, uint32_t mask) {
  std::vector<int64_t> out_dims;
  for (size_t a = 0; a < dims.size(); ++a) {
    if (!((mask >> a) & 1u)) out_dims.push_back(dims[a]);
  }
  std::vector<T> y(static_cast<size_t>(count_of(out_dims)));
  std::vector<bool> seen(y.size(), false);
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
    const T v = x[static_cast<size_t>(flat)];
    auto& r = y[static_cast<size_t>(out)];
    if (!seen[static_cast<size_t>(out)]) {
      r = v;
      seen[static_cast<size_t>(out)] = true;
    } else if (v > r) {
      r = v;
    }
  }
  for (size_t i = 0; i < y.size(); ++i) {
    if (!seen[i])
      y[i] = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(y[i])) y[i] = static_cast<T>(__builtin_bit_cast(float, kCanonicalNaN));
    }
  }
  return y;
}

template <class T>
Tensor reduce_max(int64_t opset, const std::vector<int64_t>& dims, const std::vector<T>& x,
                  std::optional<std::vector<int64_t>> axes, int64_t keepdims, int64_t noop = 0,
                  const SessionOptions& o = {}) {
  ModelBuilder m(opset);
  m.input("x", dtype_of<T>(), dims).output("y", dtype_of<T>());
  std::vector<Attr> attrs = {Attr::i("keepdims", keepdims)};
  if (opset >= 18) {
    attrs.push_back(Attr::i("noop_with_empty_axes", noop));
    if (axes) m.initializer("axes", Tensor::from<int64_t>(*axes, {static_cast<int64_t>(axes->size())}));
  } else if (axes) {
    attrs.push_back(Attr::ints("axes", *axes));
  }
  if (opset >= 18 && axes) {
    m.node("ReduceMax", {"x", "axes"}, {"y"}, attrs);
  } else {
    m.node("ReduceMax", {"x"}, {"y"}, attrs);
  }
  return m.run({{"x", Tensor::from<T>(x, dims)}}, o)[0];
}

template <class T>
void check_reduce_max_everywhere(const std::vector<int64_t>& dims, const std::vector<T>& x) {
  const int rank = static_cast<int>(dims.size());
  for (uint32_t mask = 1; mask < (1u << rank); ++mask) {
    std::vector<int64_t> axes;
    for (int a = 0; a < rank; ++a) {
      if ((mask >> a) & 1u) axes.push_back(a % 2 == 0 ? a - rank : a);  // mix negative and positive axes
    }
    const std::vector<T> want = reference_max(x, dims, mask);
    for (int64_t opset : {13, 18}) {
      for (int64_t keep : {0, 1}) {
        const Tensor y = reduce_max<T>(opset, dims, x, axes, keep, 0, options(ExecutionMode::Exact));
        std::vector<int64_t> out_dims;
        for (int a = 0; a < rank; ++a) {
          if (!((mask >> a) & 1u)) {
            out_dims.push_back(dims[static_cast<size_t>(a)]);
          } else if (keep) {
            out_dims.push_back(1);
          }
        }
        EXPECT_EQ(y.shape(), out_dims);
        const auto got = y.template to_vector<T>();
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0)
            << "mask " << mask << " opset " << opset << " keepdims " << keep;
      }
    }
  }
}

TEST(ReduceMaxOp, EveryAxisSubsetMatchesTheScan) {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> small(-20, 20);
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{3, 4, 5}, {2, 1, 3, 300}, {7}, {600, 3}, {70, 600}}) {
    std::vector<float> xf(static_cast<size_t>(count_of(dims)));
    std::vector<int32_t> xi(xf.size());
    for (size_t i = 0; i < xf.size(); ++i) {
      xi[i] = small(rng);
      xf[i] = static_cast<float>(xi[i]) * 0.5f;
      if (i % 11 == 3) xf[i] = std::numeric_limits<float>::quiet_NaN();
    }
    check_reduce_max_everywhere<float>(dims, xf);
    check_reduce_max_everywhere<int32_t>(dims, xi);
  }
}

TEST(ReduceMaxOp, NaNWinsOnlyWhenFirstAndIsCanonical) {
  const float nan = __builtin_bit_cast(float, 0xFFC00001u);
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    // Row layout: reduce the last axis.
    auto rows =
        reduce_max<float>(13, {3, 3}, {nan, 1, 2, 1, nan, 2, -0.0f, 0.0f, nan}, {{1}}, 0, 0, options(mode))
            .to_vector<float>();
    EXPECT_EQ(bits_of(rows[0]), kCanonicalNaN);
    EXPECT_EQ(rows[1], 2.0f);
    EXPECT_EQ(bits_of(rows[2]), bits_of(-0.0f));  // +0 is not strictly greater than -0
    // Column layout: reduce the first axis.
    auto cols = reduce_max<float>(13, {2, 3}, {nan, 1, -0.0f, 2, nan, 0.0f}, {{0}}, 0, 0, options(mode))
                    .to_vector<float>();
    EXPECT_EQ(bits_of(cols[0]), kCanonicalNaN);
    EXPECT_EQ(cols[1], 1.0f);
    EXPECT_EQ(bits_of(cols[2]), bits_of(-0.0f));
  }
}

TEST(ReduceMaxOp, EmptyReductionsAndEmptyAxes) {
  auto empty_f = reduce_max<float>(13, {0, 3}, {}, {{0}}, 1).to_vector<float>();
  EXPECT_EQ(empty_f, (std::vector<float>{-kInf, -kInf, -kInf}));
  auto empty_i = reduce_max<int64_t>(13, {2, 0}, {}, {{1}}, 0).to_vector<int64_t>();
  EXPECT_EQ(empty_i, (std::vector<int64_t>(2, std::numeric_limits<int64_t>::min())));
  EXPECT_EQ(reduce_max<float>(13, {2, 0}, {}, {{0}}, 0).shape(), (std::vector<int64_t>{0}));
  // No axes: every axis; with noop_with_empty_axes (opset 18): the input itself.
  const std::vector<float> x = {3, -1, 7, 2};
  for (int64_t opset : {13, 18}) {
    const Tensor all = reduce_max<float>(opset, {2, 2}, x, std::nullopt, 1);
    EXPECT_EQ(all.shape(), (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(all.to_vector<float>(), (std::vector<float>{7}));
  }
  const Tensor same = reduce_max<float>(18, {2, 2}, x, std::nullopt, 1, 1);
  EXPECT_EQ(same.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(same.to_vector<float>(), x);
  const Tensor same_empty_list = reduce_max<float>(18, {2, 2}, x, std::vector<int64_t>{}, 0, 1);
  EXPECT_EQ(same_empty_list.to_vector<float>(), x);
}

TEST(ReduceMaxOp, AxesComputedAtRunTime) {
  ModelBuilder m(18);
  m.input("x", DType::U8, {2, 3}).input("axes", DType::I64, {1}).output("y", DType::U8);
  m.node("ReduceMax", {"x", "axes"}, {"y"}, {Attr::i("keepdims", 0)});
  Session s = m.session();
  const Tensor x = Tensor::from<uint8_t>({1, 9, 3, 4, 5, 255}, {2, 3});
  EXPECT_EQ(s.run({{"x", x}, {"axes", Tensor::from<int64_t>({0}, {1})}})[0].to_vector<uint8_t>(),
            (std::vector<uint8_t>{4, 9, 255}));
  EXPECT_EQ(s.run({{"x", x}, {"axes", Tensor::from<int64_t>({-1}, {1})}})[0].to_vector<uint8_t>(),
            (std::vector<uint8_t>{9, 255}));
  EXPECT_EQ(error_kind([&] {
              s.run({{"x", x}, {"axes", Tensor::from<int64_t>({2}, {1})}});
            }),
            SessionError::Kind::InvalidInput);
}

TEST(SoftmaxReduce, BackendNodeCases) {
  const int passed = check_backend_cases({"test_softmax", "test_reduce_max"});
  if (std::filesystem::is_directory(backend_node_dir())) {
    EXPECT_GE(passed, 2 * (7 + 8));
  }
}

}  // namespace
}  // namespace onemodel::test

// MatMul and Gemm through Session. Exact mode must equal, bit for bit and on every kernel path and thread
// count, the definition of exact-mode.md computed here one output at a time (one float accumulator from +0,
// increasing k, unfused); fast mode must stay within the sequential-summation error bound of kernels-gemm.md.
// Gemm's epilogue is (alpha * prod) + (beta * C) in separate roundings. Plus the ONNX backend node cases in
// both modes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kCanonicalNaN = 0x7FC00000u;

float canonical(float v) {
  return std::isnan(v) ? __builtin_bit_cast(float, kCanonicalNaN) : v;
}

std::vector<float> random_floats(size_t n, std::mt19937& rng, bool specials = false) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  if (specials && n > 8) {
    const float odd[] = {kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), -0.0f, 1e-41f, -3e-39f, 1e30f};
    for (size_t i = 0; i < std::size(odd); ++i) v[(i * 7919 + 3) % n] = odd[i];
  }
  return v;
}

// Matrices of a MatMul: batch index -> element offsets of A and B, following numpy broadcasting.
struct Operands {
  std::vector<int64_t> a_dims, b_dims, out_dims;
  int64_t m, k, n;
  std::vector<int64_t> batch;             // output batch extents
  std::vector<int64_t> a_batch, b_batch;  // operand batch extents, right-aligned to `batch`
};

Operands operands(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  Operands o{a,  b,  {}, a.size() == 1 ? 1 : a[a.size() - 2], a.back(), b.size() == 1 ? 1 : b.back(),
             {}, {}, {}};
  const size_t ra = a.size() > 2 ? a.size() - 2 : 0, rb = b.size() > 2 ? b.size() - 2 : 0;
  const size_t r = std::max(ra, rb);
  for (size_t i = 0; i < r; ++i) {
    const int64_t ea = i + ra >= r ? a[i + ra - r] : 1, eb = i + rb >= r ? b[i + rb - r] : 1;
    o.a_batch.push_back(ea);
    o.b_batch.push_back(eb);
    o.batch.push_back(std::max(ea, eb));
  }
  o.out_dims = o.batch;
  if (a.size() > 1) o.out_dims.push_back(o.m);
  if (b.size() > 1) o.out_dims.push_back(o.n);
  return o;
}

// The exact-mode definition per output, or (double_sum) the double-precision sum and the magnitude sum used
// for the fast-mode bound.
struct Reference {
  std::vector<float> exact;
  std::vector<double> value, magnitude;
};

Reference reference_matmul(const Operands& o, const std::vector<float>& a, const std::vector<float>& b) {
  Reference r;
  const int64_t batches = std::accumulate(o.batch.begin(), o.batch.end(), int64_t{1}, std::multiplies<>());
  for (int64_t t = 0; t < batches; ++t) {
    // Batch offsets of A and B from the output batch index.
    int64_t rest = t, a_off = 0, b_off = 0, a_stride = o.m * o.k, b_stride = o.k * o.n;
    for (size_t i = o.batch.size(); i-- > 0;) {
      const int64_t idx = rest % o.batch[i];
      rest /= o.batch[i];
      a_off += (o.a_batch[i] == 1 ? 0 : idx) * a_stride;
      b_off += (o.b_batch[i] == 1 ? 0 : idx) * b_stride;
      a_stride *= o.a_batch[i];
      b_stride *= o.b_batch[i];
    }
    for (int64_t i = 0; i < o.m; ++i) {
      for (int64_t j = 0; j < o.n; ++j) {
        float acc = 0.0f;
        double sum = 0, mag = 0;
        for (int64_t p = 0; p < o.k; ++p) {
          const float x = a[static_cast<size_t>(a_off + i * o.k + p)],
                      y = b[static_cast<size_t>(b_off + p * o.n + j)];
          const float prod = x * y;
          acc = acc + prod;
          sum += static_cast<double>(x) * y;
          mag += std::fabs(static_cast<double>(x) * y);
        }
        r.exact.push_back(canonical(acc));
        r.value.push_back(sum);
        r.magnitude.push_back(mag);
      }
    }
  }
  return r;
}

ModelBuilder matmul_model(const Operands& o, const Tensor* constant_b) {
  ModelBuilder m(13);
  m.input("a", DType::F32, o.a_dims).output("y", DType::F32);
  if (constant_b != nullptr) {
    m.initializer("b", *constant_b);
  } else {
    m.input("b", DType::F32, o.b_dims);
  }
  m.node("MatMul", {"a", "b"}, {"y"});
  return m;
}

int64_t count_of(const std::vector<int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
}

const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> kShapes = {
    {{5, 7}, {7, 9}},
    {{1, 1}, {1, 1}},
    {{33, 70}, {70, 19}},
    {{7}, {7, 3}},
    {{2, 7}, {7}},
    {{7}, {7}},
    {{2, 1, 3, 17}, {4, 17, 6}},
    {{3, 4, 5}, {5, 2}},
    {{4, 5}, {2, 3, 5, 6}},
    {{2, 3, 9, 130}, {2, 3, 130, 5}},
    {{3, 0}, {0, 4}},
    {{0, 3}, {3, 4}},
};

TEST(LinalgOps, MatMulExactIsTheDefinitionOnEveryPathAndThreadCount) {
  std::mt19937 rng(11);
  for (const auto& [ad, bd] : kShapes) {
    const Operands o = operands(ad, bd);
    const auto a = random_floats(static_cast<size_t>(count_of(ad)), rng, true);
    const auto b = random_floats(static_cast<size_t>(count_of(bd)), rng, true);
    const Reference ref = reference_matmul(o, a, b);
    const Tensor ta = Tensor::from<float>(a, ad), tb = Tensor::from<float>(b, bd);
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        for (bool constant_b : {false, true}) {
          const ModelBuilder m = matmul_model(o, constant_b ? &tb : nullptr);
          std::vector<NamedTensor> feeds = {{"a", ta}};
          if (!constant_b) feeds.push_back({"b", tb});
          const Tensor y = m.run(feeds, options(ExecutionMode::Exact, path, threads))[0];
          ASSERT_EQ(y.shape(), o.out_dims);
          const auto got = y.to_vector<float>();
          ASSERT_EQ(got.size(), ref.exact.size());
          size_t bad = 0;
          for (size_t i = 0; i < got.size(); ++i) bad += bits_of(got[i]) != bits_of(ref.exact[i]) ? 1 : 0;
          EXPECT_EQ(bad, 0u) << path << " threads " << threads << (constant_b ? " packed " : " ")
                             << ::testing::PrintToString(ad) << " x " << ::testing::PrintToString(bd);
        }
      }
    }
  }
}

TEST(LinalgOps, MatMulFastIsWithinTheSummationBound) {
  std::mt19937 rng(12);
  for (const auto& [ad, bd] : kShapes) {
    const Operands o = operands(ad, bd);
    const auto a = random_floats(static_cast<size_t>(count_of(ad)), rng);
    const auto b = random_floats(static_cast<size_t>(count_of(bd)), rng);
    const Reference ref = reference_matmul(o, a, b);
    const Tensor ta = Tensor::from<float>(a, ad), tb = Tensor::from<float>(b, bd);
    for (const std::string& path : kernel_paths()) {
      for (bool constant_b : {false, true}) {
        std::vector<NamedTensor> feeds = {{"a", ta}};
        if (!constant_b) feeds.push_back({"b", tb});
        const auto got = matmul_model(o, constant_b ? &tb : nullptr)
                             .run(feeds, options(ExecutionMode::Fast, path))[0]
                             .to_vector<float>();
        ASSERT_EQ(got.size(), ref.value.size());
        for (size_t i = 0; i < got.size(); ++i) {
          const double bound = static_cast<double>(o.k) * 0x1p-24 * ref.magnitude[i] + 1e-30;
          ASSERT_LE(std::fabs(got[i] - ref.value[i]), bound) << path << " element " << i;
        }
      }
    }
  }
}

// Integer products wrap around; doubles accumulate in order like floats.
template <class T>
void check_plain_matmul(std::vector<T> a, std::vector<T> b, int64_t m, int64_t k, int64_t n) {
  using Acc =
      typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>, std::type_identity<T>>::type;
  ModelBuilder model(13);
  model.input("a", dtype_of<T>(), {m, k}).input("b", dtype_of<T>(), {k, n}).output("y", dtype_of<T>());
  model.node("MatMul", {"a", "b"}, {"y"});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto got =
        model.run({{"a", Tensor::from<T>(a, {m, k})}, {"b", Tensor::from<T>(b, {k, n})}}, options(mode))[0]
            .template to_vector<T>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        Acc acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc = static_cast<Acc>(acc + static_cast<Acc>(a[static_cast<size_t>(i * k + p)]) *
                                           static_cast<Acc>(b[static_cast<size_t>(p * n + j)]));
        }
        EXPECT_EQ(got[static_cast<size_t>(i * n + j)], static_cast<T>(acc));
      }
    }
  }
}

TEST(LinalgOps, MatMulOfIntegersAndDoubles) {
  const int32_t big = std::numeric_limits<int32_t>::max();
  check_plain_matmul<int32_t>({big, big, -3, 4, 5, -6}, {big, 2, 3, 4}, 3, 2, 2);
  check_plain_matmul<int64_t>({1, -2, 3, std::numeric_limits<int64_t>::min(), 5, 6}, {7, 8, 9, -1, 2, 3}, 2,
                              3, 2);
  check_plain_matmul<uint32_t>({4000000000u, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2);
  check_plain_matmul<uint64_t>({1, 2, 3}, {4, 5, 6}, 1, 3, 1);
  check_plain_matmul<double>({0.1, 0.2, 0.3, 1e300, -1e300, 0.5}, {3.0, -0.7, 1e-310, 2.0, 4.0, 1.0}, 2, 3,
                             2);
}

TEST(LinalgOps, MatMulRejectsShapesThatDoNotMultiply) {
  for (const auto& [ad, bd] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{2, 3}, {4, 5}}, {{2, 2, 3}, {3, 3, 4}}, {{3}, {4}}}) {
    const Operands o = operands(ad, bd);
    const Tensor ta(DType::F32, ad), tb(DType::F32, bd);
    EXPECT_EQ(error_kind([&] { matmul_model(o, nullptr).run({{"a", ta}, {"b", tb}}); }), Kind::InvalidInput);
  }
}

// --- Gemm

struct GemmCase {
  bool trans_a, trans_b;
  float alpha, beta;
  std::optional<std::vector<int64_t>> c_dims;
};

// y = (alpha * prod) + (beta * C) with op(A) = A or A^T, prod by the exact definition, canonical NaN.
std::vector<float> reference_gemm(const GemmCase& g, int64_t m, int64_t k, int64_t n,
                                  const std::vector<float>& a, const std::vector<float>& b,
                                  const std::vector<float>& c) {
  std::vector<float> y;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        const float x = g.trans_a ? a[static_cast<size_t>(p * m + i)] : a[static_cast<size_t>(i * k + p)];
        const float w = g.trans_b ? b[static_cast<size_t>(j * k + p)] : b[static_cast<size_t>(p * n + j)];
        acc = acc + x * w;
      }
      float v = acc;
      if (g.alpha != 1.0f) v = g.alpha * v;
      if (g.c_dims) {
        const auto& cd = *g.c_dims;
        const int64_t rows = cd.size() == 2 ? cd[0] : 1, cols = cd.empty() ? 1 : cd.back();
        const float bias = c[static_cast<size_t>((rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j))];
        v = v + (g.beta != 1.0f ? g.beta * bias : bias);
      }
      y.push_back(canonical(v));
    }
  }
  return y;
}

TEST(LinalgOps, GemmExactIsProductThenSeparateEpilogue) {
  std::mt19937 rng(13);
  const int64_t m = 6, k = 37, n = 11;
  const std::vector<std::optional<std::vector<int64_t>>> c_shapes = {std::nullopt,
                                                                     std::vector<int64_t>{},
                                                                     std::vector<int64_t>{n},
                                                                     std::vector<int64_t>{1, n},
                                                                     std::vector<int64_t>{m, 1},
                                                                     std::vector<int64_t>{m, n}};
  int checked = 0;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (float alpha : {1.0f, 0.37f}) {
        for (float beta : {1.0f, -2.5f}) {
          for (const auto& cd : c_shapes) {
            const GemmCase g{ta, tb, alpha, beta, cd};
            const std::vector<int64_t> a_dims = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
            const std::vector<int64_t> b_dims = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
            const auto a = random_floats(static_cast<size_t>(m * k), rng, true);
            const auto b = random_floats(static_cast<size_t>(k * n), rng);
            const auto c = cd ? random_floats(static_cast<size_t>(count_of(*cd)), rng) : std::vector<float>{};
            const auto want = reference_gemm(g, m, k, n, a, b, c);
            for (bool constant_b : {false, true}) {
              ModelBuilder model(13);
              model.input("a", DType::F32, a_dims).output("y", DType::F32);
              std::vector<NamedTensor> feeds = {{"a", Tensor::from<float>(a, a_dims)}};
              if (constant_b) {
                model.initializer("b", Tensor::from<float>(b, b_dims));
              } else {
                model.input("b", DType::F32, b_dims);
                feeds.push_back({"b", Tensor::from<float>(b, b_dims)});
              }
              if (cd) {
                model.input("c", DType::F32, *cd);
                feeds.push_back({"c", Tensor::from<float>(c, *cd)});
              }
              const std::initializer_list<Attr> attrs = {Attr::i("transA", ta), Attr::i("transB", tb),
                                                         Attr::f("alpha", alpha), Attr::f("beta", beta)};
              if (cd) {
                model.node("Gemm", {"a", "b", "c"}, {"y"}, attrs);
              } else {
                model.node("Gemm", {"a", "b"}, {"y"}, attrs);
              }
              for (const std::string& path : kernel_paths()) {
                const Tensor y = model.run(feeds, options(ExecutionMode::Exact, path))[0];
                ASSERT_EQ(y.shape(), (std::vector<int64_t>{m, n}));
                const auto got = y.to_vector<float>();
                size_t bad = 0;
                for (size_t i = 0; i < got.size(); ++i) bad += bits_of(got[i]) != bits_of(want[i]) ? 1 : 0;
                EXPECT_EQ(bad, 0u) << path << " transA " << ta << " transB " << tb << " alpha " << alpha
                                   << " beta " << beta << " C "
                                   << (cd ? ::testing::PrintToString(*cd) : "none");
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(LinalgOps, GemmEpilogueNaNIsCanonicalInExactMode) {
  // alpha * inf with alpha = 0 is NaN; inf + -inf from the bias is NaN too.
  ModelBuilder model(13);
  model.input("a", DType::F32, {1, 1}).input("b", DType::F32, {1, 2}).input("c", DType::F32, {2});
  model.output("y", DType::F32).node("Gemm", {"a", "b", "c"}, {"y"}, {Attr::f("alpha", 0.0f)});
  const auto y = model
                     .run({{"a", Tensor::from<float>({kInf}, {1, 1})},
                           {"b", Tensor::from<float>({1.0f, -1.0f}, {1, 2})},
                           {"c", Tensor::from<float>({1.0f, 2.0f}, {2})}},
                          options(ExecutionMode::Exact))[0]
                     .to_vector<float>();
  EXPECT_EQ(bits_of(y[0]), kCanonicalNaN);
  EXPECT_EQ(bits_of(y[1]), kCanonicalNaN);
}

TEST(LinalgOps, GemmOfDoubles) {
  ModelBuilder model(13);
  model.input("a", DType::F64, {2, 2}).input("b", DType::F64, {2, 2}).input("c", DType::F64, {2});
  model.output("y", DType::F64);
  model.node("Gemm", {"a", "b", "c"}, {"y"},
             {Attr::i("transB", 1), Attr::f("alpha", 0.5f), Attr::f("beta", 3.0f)});
  const auto y = model
                     .run({{"a", Tensor::from<double>({1, 2, 3, 4}, {2, 2})},
                           {"b", Tensor::from<double>({5, 6, 7, 8}, {2, 2})},
                           {"c", Tensor::from<double>({0.25, -1}, {2})}})[0]
                     .to_vector<double>();
  // A * B^T = [[17, 23], [39, 53]]
  EXPECT_EQ(y, (std::vector<double>{0.5 * 17 + 0.75, 0.5 * 23 - 3, 0.5 * 39 + 0.75, 0.5 * 53 - 3}));
}

TEST(LinalgOps, GemmRejectsBadOperands) {
  auto build = [](std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> c) {
    ModelBuilder model(13);
    model.input("a", DType::F32, a)
        .input("b", DType::F32, b)
        .input("c", DType::F32, c)
        .output("y", DType::F32);
    model.node("Gemm", {"a", "b", "c"}, {"y"});
    return model.run(
        {{"a", Tensor(DType::F32, a)}, {"b", Tensor(DType::F32, b)}, {"c", Tensor(DType::F32, c)}});
  };
  EXPECT_EQ(error_kind([&] { build({2, 3}, {4, 5}, {5}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { build({2, 3}, {3, 5}, {3}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { build({2, 3}, {3, 5}, {3, 2, 5}); }), Kind::InvalidInput);
  EXPECT_EQ(error_kind([&] { build({1, 2, 3}, {3, 5}, {5}); }), Kind::InvalidInput);
}

TEST(LinalgOps, BackendNodeCases) {
  const int passed = check_backend_cases({"test_matmul", "test_gemm"}, {"test_matmulinteger"});
  if (std::filesystem::is_directory(backend_node_dir())) {
    EXPECT_EQ(passed, 2 * 14);
  }
}

}  // namespace
}  // namespace onemodel::test

// Det and Einsum beyond the ONNX backend cases: Det against a double-precision cofactor expansion, singular
// and NaN matrices, the same bits in both modes; Einsum against naive loops for a batched product, implicit
// output, diagonals, ellipsis broadcasting and integers, and refusals of malformed equations.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/bits.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

using Kind = SessionError::Kind;

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Laplace expansion along the first row, in double.
double cofactor_det(const std::vector<double>& a, int m) {
  if (m == 1) return a[0];
  double det = 0.0;
  for (int c = 0; c < m; ++c) {
    std::vector<double> minor;
    for (int r = 1; r < m; ++r) {
      for (int k = 0; k < m; ++k) {
        if (k != c) minor.push_back(a[static_cast<size_t>(r * m + k)]);
      }
    }
    det += (c % 2 == 0 ? 1.0 : -1.0) * a[static_cast<size_t>(c)] * cofactor_det(minor, m - 1);
  }
  return det;
}

Tensor det(const Tensor& x, ExecutionMode mode) {
  ModelBuilder m(11);
  m.input("x", DType::F32, x.shape()).output("y", DType::F32).node("Det", {"x"}, {"y"});
  return m.run({{"x", x}}, options(mode))[0];
}

TEST(DetOp, MatchesCofactorExpansionInBothModes) {
  std::mt19937 rng(3);
  for (int m : {1, 2, 3, 5, 6}) {
    const std::vector<float> a = random_floats(static_cast<size_t>(4 * m * m), rng);
    const Tensor x = Tensor::from<float>(a, {4, m, m});
    const Tensor fast = det(x, ExecutionMode::Fast);
    EXPECT_TRUE(same_bytes(fast, det(x, ExecutionMode::Exact))) << m;
    const auto got = fast.to_vector<float>();
    for (int b = 0; b < 4; ++b) {
      const std::vector<double> one(a.begin() + b * m * m, a.begin() + (b + 1) * m * m);
      const double want = cofactor_det(one, m);
      EXPECT_NEAR(got[static_cast<size_t>(b)], want, 1e-4 * (1.0 + std::fabs(want))) << m;
    }
  }
}

TEST(DetOp, SingularIsZeroAndNaNIsCanonical) {
  const Tensor singular = Tensor::from<float>(std::vector<float>{1, 2, 3, 2, 4, 6, 0, 1, 5}, {3, 3});
  EXPECT_EQ(det(singular, ExecutionMode::Exact).to_vector<float>()[0], 0.0f);
  const Tensor nan =
      Tensor::from<float>(std::vector<float>{__builtin_bit_cast(float, 0xFFC00001u), 1, 2, 3}, {2, 2});
  EXPECT_EQ(bits_of(det(nan, ExecutionMode::Exact).to_vector<float>()[0]), 0x7FC00000u);
  ModelBuilder m(11);
  m.input("x", DType::F32, {2, 3}).output("y", DType::F32).node("Det", {"x"}, {"y"});
  EXPECT_EQ(error_kind([&] {
              m.run({{"x", Tensor::from<float>(std::vector<float>(6, 1.0f), {2, 3})}});
            }),
            Kind::InvalidInput);
}

Tensor einsum(const std::string& equation, const std::vector<Tensor>& inputs, ExecutionMode mode,
              int threads = 0) {
  ModelBuilder m(12);
  std::vector<NamedTensor> feeds;
  const char* names[] = {"a", "b", "c"};
  for (size_t i = 0; i < inputs.size(); ++i) {
    m.input(names[i], inputs[i].dtype(), inputs[i].shape());
    feeds.push_back({names[i], inputs[i]});
  }
  m.output("y", inputs[0].dtype());
  if (inputs.size() == 1) m.node("Einsum", {"a"}, {"y"}, {Attr::s("equation", equation)});
  if (inputs.size() == 2) m.node("Einsum", {"a", "b"}, {"y"}, {Attr::s("equation", equation)});
  if (inputs.size() == 3) m.node("Einsum", {"a", "b", "c"}, {"y"}, {Attr::s("equation", equation)});
  return m.run(feeds, options(mode, {}, threads))[0];
}

TEST(EinsumOp, BatchedProductFollowsTheDocumentedOrderBitForBit) {
  std::mt19937 rng(8);
  const int64_t B = 3, I = 40, J = 7, K = 50;  // several chunks of outputs, so two threads share them
  const std::vector<float> a = random_floats(static_cast<size_t>(B * I * J), rng);
  const std::vector<float> b = random_floats(static_cast<size_t>(B * J * K), rng);
  // One accumulator from +0, j increasing, each product and sum rounded to float.
  std::vector<float> want(static_cast<size_t>(B * I * K));
  for (int64_t n = 0; n < B; ++n) {
    for (int64_t i = 0; i < I; ++i) {
      for (int64_t k = 0; k < K; ++k) {
        float acc = 0.0f;
        for (int64_t j = 0; j < J; ++j) {
          const float p =
              a[static_cast<size_t>((n * I + i) * J + j)] * b[static_cast<size_t>((n * J + j) * K + k)];
          acc = acc + p;
        }
        want[static_cast<size_t>((n * I + i) * K + k)] = acc;
      }
    }
  }
  const std::vector<Tensor> in = {Tensor::from<float>(a, {B, I, J}), Tensor::from<float>(b, {B, J, K})};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (int threads : {1, 2}) {
      const Tensor y = einsum("bij,bjk->bik", in, mode, threads);
      ASSERT_EQ(y.shape(), (std::vector<int64_t>{B, I, K}));
      const auto got = y.to_vector<float>();
      for (size_t e = 0; e < want.size(); ++e) ASSERT_EQ(bits_of(got[e]), bits_of(want[e])) << e;
    }
  }
  // The implicit form keeps the labels used once, alphabetically: "bij,bjk" sums over b and j.
  EXPECT_TRUE(same_bytes(einsum("bij,bjk", in, ExecutionMode::Exact),
                         einsum("bij,bjk->ik", in, ExecutionMode::Exact)));
}

TEST(EinsumOp, DiagonalsEllipsisAndIntegers) {
  const Tensor sq = Tensor::from<int64_t>(std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  EXPECT_EQ(einsum("ii->i", {sq}, ExecutionMode::Exact).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 5, 9}));
  // A label repeated in a term is summed in implicit mode: the trace.
  EXPECT_EQ(einsum("ii", {sq}, ExecutionMode::Exact).to_vector<int64_t>(), (std::vector<int64_t>{15}));
  // The ellipsis broadcasts: [2, 1, 3] against [4, 3] gives [2, 4].
  std::vector<int32_t> a(6), b(12);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int32_t>(i + 1);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int32_t>(i % 5);
  const Tensor y =
      einsum("...j,...j->...", {Tensor::from<int32_t>(a, {2, 1, 3}), Tensor::from<int32_t>(b, {4, 3})},
             ExecutionMode::Fast);
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{2, 4}));
  const auto got = y.to_vector<int32_t>();
  for (int64_t p = 0; p < 2; ++p) {
    for (int64_t q = 0; q < 4; ++q) {
      int32_t want = 0;
      for (int64_t j = 0; j < 3; ++j)
        want += a[static_cast<size_t>(p * 3 + j)] * b[static_cast<size_t>(q * 3 + j)];
      EXPECT_EQ(got[static_cast<size_t>(p * 4 + q)], want);
    }
  }
}

TEST(EinsumOp, RefusesMalformedEquations) {
  const Tensor a = Tensor::from<float>(std::vector<float>(6, 1.0f), {2, 3});
  const Tensor b = Tensor::from<float>(std::vector<float>(8, 1.0f), {4, 2});
  // Malformed text fails the model; an equation that does not fit the inputs' ranks, or names output labels
  // badly, fails when the shapes are known.
  for (const char* equation : {"ij", "ij,jk,kl->il", "i1,jk", "ij..,jk"}) {
    EXPECT_EQ(error_kind([&] {
                einsum(equation, {a, b}, ExecutionMode::Fast);
              }),
              Kind::InvalidModel)
        << equation;
  }
  for (const char* equation : {"ij,jk->iz", "ij,jk->ii", "ijk,jk"}) {
    EXPECT_EQ(error_kind([&] {
                einsum(equation, {a, b}, ExecutionMode::Fast);
              }),
              Kind::InvalidInput)
        << equation;
  }
  // Nine output axes, one more than a tensor holds.
  const Tensor cube = Tensor::from<float>(std::vector<float>{1.0f}, {1, 1, 1});
  EXPECT_EQ(error_kind([&] {
              einsum("abc,def,ghi->abcdefghi", {cube, cube, cube}, ExecutionMode::Fast);
            }),
            Kind::InvalidInput);
  // Ellipsis axes of 0 and 2 do not broadcast.
  EXPECT_EQ(error_kind([&] {
              einsum("...i,...i",
                     {Tensor(DType::F32, {0, 3}), Tensor::from<float>(std::vector<float>(6, 1.0f), {2, 3})},
                     ExecutionMode::Fast);
            }),
            Kind::InvalidInput);
  std::string message;
  // j is 3 in a and 4 in b.
  EXPECT_NE(error_kind([&] { einsum("ij,jk->ik", {a, b}, ExecutionMode::Fast); }, &message), Kind::Disposed);
  EXPECT_NE(message.find("label 'j'"), std::string::npos) << message;
}

}  // namespace
}  // namespace onemodel::test

// gelu (graph-passes.md): the Gelu chains as exporters write them (erf and tanh forms) become one Gelu node
// in fast mode and are left alone in exact mode. The fused kernel rounds differently from the separate
// operators, so fast results are compared with the unfused graph and with a double-precision Gelu of the same
// form within a bound derived here.
//
// Bound, with u = 2^-24 and g = gelu(x). The unfused chain: x/sqrt2 rounds once (erf' * t <= 0.49, so at most
// 0.25 u of absolute change in erf), Erf is within 2.8 ulp (exact-transcendentals.md, |erf| < 1 so 2.8 u),
// 1 + erf rounds to within u (values below 2), and the two products add u |g| each: absolute error at most
// 0.5 |x| (0.25 + 2.8 + 1) u + 2 u |g| < 2.1 u |x| + 2 u |g|. The fused kernel is within 12 ulp of g for
// x >= -3 (ulp(g) <= 2 u |g|, so 24 u |g|) and, below -3, within 180 ulp of a g smaller than 0.005 (under
// 0.6 u |x|). Both sides therefore lie within u (2.1 |x| + 26 |g|) of g, and within twice that of each other;
// the test uses u (4 |x| + 32 |g|) + 1e-30 against the double value and twice that between the two graphs.
// The tanh form has the same structure: the argument sqrt(2/pi) (x + 0.044715 x^3) carries a few u of
// relative error, which moves tanh by at most (1 - tanh^2) |arg| times that (below 0.45 times it), Tanh is
// within 1.4 ulp, and the fused kernel within 18 ulp of g for x >= -3 (62 ulp of a g below 1e-3 under -3);
// the same bound holds with room.
#include <gtest/gtest.h>

#include <cmath>

#include "pass_test_util.h"

namespace onemodel::test {
namespace {

constexpr float kSqrt2 = 1.41421356f, kInvSqrt2 = 0.70710677f, kSqrt2OverPi = 0.7978846f, kKappa = 0.044715f;
constexpr int64_t kRows = 4, kCols = 250;

Tensor scalar(float v) {
  return Tensor::from(std::vector<float>{v}, {});
}

// The constants of the chain, and x as the graph input unless the test computes it.
ModelBuilder with_constants(float sqrt2 = kSqrt2, bool x_input = true) {
  ModelBuilder b(17);
  if (x_input) b.input("x", DType::F32, {-1, kCols});
  b.initializer("sqrt2", scalar(sqrt2))
      .initializer("inv_sqrt2", scalar(kInvSqrt2))
      .initializer("one", scalar(1.0f))
      .initializer("half", scalar(0.5f))
      .initializer("beta", scalar(kSqrt2OverPi))
      .initializer("kappa", scalar(kKappa))
      .initializer("three", scalar(3.0f));
  return b;
}

struct Spelling {
  std::string name;
  ModelBuilder model;
  size_t nodes;  // before the pass
  bool tanh;     // the tanh form
  bool pow;      // uses Pow, which has no exact kernel
};

// The spellings the pass accepts; every model reads x and writes z.
std::vector<Spelling> spellings() {
  std::vector<Spelling> out;
  ModelBuilder a = with_constants();  // torch's opset-17 export
  a.node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"x", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"});
  out.push_back({"((x * s) * 0.5)", std::move(a), 5, false, false});
  ModelBuilder b = with_constants();
  b.node("Mul", {"inv_sqrt2", "x"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"one", "e"}, {"s"})
      .node("Mul", {"s", "x"}, {"p"})
      .node("Mul", {"half", "p"}, {"z"});
  out.push_back({"1/sqrt2, operands swapped", std::move(b), 5, false, false});
  ModelBuilder c = with_constants();
  c.node("Mul", {"x", "half"}, {"h"})
      .node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"h", "s"}, {"z"});
  out.push_back({"((x * 0.5) * s)", std::move(c), 5, false, false});
  ModelBuilder d = with_constants();
  d.node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"s", "half"}, {"q"})
      .node("Mul", {"x", "q"}, {"z"});
  out.push_back({"(x * (s * 0.5))", std::move(d), 5, false, false});
  ModelBuilder e = with_constants();  // the tanh form with Pow, as Hugging Face's NewGELU exports
  e.node("Mul", {"x", "half"}, {"h"})
      .node("Pow", {"x", "three"}, {"c"})
      .node("Mul", {"kappa", "c"}, {"k"})
      .node("Add", {"x", "k"}, {"i"})
      .node("Mul", {"beta", "i"}, {"a"})
      .node("Tanh", {"a"}, {"t"})
      .node("Add", {"one", "t"}, {"s"})
      .node("Mul", {"h", "s"}, {"z"});
  out.push_back({"tanh, Pow", std::move(e), 8, true, true});
  ModelBuilder f = with_constants();
  f.node("Mul", {"x", "x"}, {"sq"})
      .node("Mul", {"sq", "x"}, {"c"})
      .node("Mul", {"c", "kappa"}, {"k"})
      .node("Add", {"k", "x"}, {"i"})
      .node("Mul", {"i", "beta"}, {"a"})
      .node("Tanh", {"a"}, {"t"})
      .node("Add", {"t", "one"}, {"s"})
      .node("Mul", {"x", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"});
  out.push_back({"tanh, (x * x) * x", std::move(f), 9, true, false});
  for (Spelling& sp : out) sp.model.output("z", DType::F32);
  return out;
}

// Finite values over the range where Gelu is not yet x or 0, and a NaN.
Tensor gelu_input() {
  std::vector<float> v = uniform_values(static_cast<size_t>(kRows * kCols), 17, -6.0f, 6.0f, false);
  v[10] = std::numeric_limits<float>::quiet_NaN();
  v[11] = 0.0f;
  v[12] = -0.0f;
  return Tensor::from(v, {kRows, kCols});
}

double gelu_reference(double x, bool tanh_form) {
  if (tanh_form) return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

double bound(double x, double g) {
  return (4.0 * std::fabs(x) + 32.0 * std::fabs(g)) * 0x1p-24 + 1e-30;
}

TEST(GeluPass, FusesEverySpellingInFastModeWithinTheBound) {
  const Tensor x = gelu_input();
  const std::vector<float> xs = x.to_vector<float>();
  for (const Spelling& sp : spellings()) {
    const ModelBuilder& b = sp.model;
    const std::string& name = sp.name;
    EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)), 1u) << name;
    EXPECT_EQ(nodes_after_passes(b, at_level(options(ExecutionMode::Fast), OptimizationLevel::None)),
              sp.nodes)
        << name;
    for (const std::string& path : kernel_paths()) {
      const SessionOptions fast = options(ExecutionMode::Fast, path, 1);
      const std::vector<float> fused = b.run({{"x", x}}, fast)[0].to_vector<float>();
      const std::vector<float> plain =
          b.run({{"x", x}}, at_level(fast, OptimizationLevel::None))[0].to_vector<float>();
      ASSERT_EQ(fused.size(), xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        const double xv = xs[i], want = gelu_reference(xv, sp.tanh);
        if (std::isnan(xv)) {
          EXPECT_TRUE(std::isnan(fused[i]) && std::isnan(plain[i])) << name << " " << path;
          continue;
        }
        ASSERT_LE(std::fabs(fused[i] - want), bound(xv, want)) << name << " " << path << " x=" << xv;
        ASSERT_LE(std::fabs(plain[i] - want), bound(xv, want)) << name << " " << path << " x=" << xv;
        ASSERT_LE(std::fabs(static_cast<double>(fused[i]) - plain[i]), 2.0 * bound(xv, want))
            << name << " " << path << " x=" << xv;
      }
    }
  }
}

TEST(GeluPass, ExactModeRunsTheSeparateOperators) {
  const Tensor x = gelu_input();
  for (const Spelling& sp : spellings()) {
    if (sp.pow) continue;  // Pow has no exact kernel, so exact mode refuses the model
    const SessionOptions exact = options(ExecutionMode::Exact);
    EXPECT_EQ(nodes_after_passes(sp.model, exact), sp.nodes) << sp.name;
    EXPECT_TRUE(same_bytes(sp.model.run({{"x", x}}, exact)[0],
                           sp.model.run({{"x", x}}, at_level(exact, OptimizationLevel::None))[0]))
        << sp.name;
  }
}

TEST(GeluPass, LeavesOtherChainsAlone) {
  const SessionOptions fast = options(ExecutionMode::Fast);
  // sqrt(2.25) is no sqrt2.
  ModelBuilder wrong = with_constants(1.5f);
  wrong.node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"x", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(wrong, fast), 5u);
  // The erf value is also a graph output, so it cannot disappear.
  ModelBuilder shared = with_constants();
  shared.node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"x", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"})
      .output("z", DType::F32)
      .output("e", DType::F32);
  EXPECT_EQ(nodes_after_passes(shared, fast), 5u);
  // The last factor is x's square, not x.
  ModelBuilder other = with_constants();
  other.node("Mul", {"x", "x"}, {"x2"})
      .node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"x2", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(other, fast), 6u);
}

// A transformer feed-forward layer: the fused Gelu then joins the linear before it as its epilogue
// activation.
TEST(GeluPass, FusedGeluBecomesTheLinearActivation) {
  constexpr int64_t k = 48;
  ModelBuilder b = with_constants(kSqrt2, false);
  b.input("a", DType::F32, {-1, k})
      .initializer("W", Tensor::from(uniform_values(static_cast<size_t>(k * kCols), 3, -0.5f, 0.5f, false),
                                     {k, kCols}))
      .initializer("bias",
                   Tensor::from(uniform_values(static_cast<size_t>(kCols), 4, -1.0f, 1.0f, false), {kCols}))
      .node("MatMul", {"a", "W"}, {"y0"})
      .node("Add", {"y0", "bias"}, {"x"})
      .node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"x", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)), 1u);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 6u);  // the linear alone
}

// After a Conv the fused Gelu joins the convolution's epilogue (conv-activation shares the activation list).
TEST(GeluPass, FusedGeluJoinsAConvolution) {
  constexpr int64_t channels = 3, out_channels = 4, size = 9;
  ModelBuilder b = with_constants(kSqrt2, false);
  b.input("image", DType::F32, {1, channels, size, size})
      .initializer("W", Tensor::from(uniform_values(static_cast<size_t>(out_channels * channels * 9), 5,
                                                    -0.5f, 0.5f, false),
                                     {out_channels, channels, 3, 3}))
      .node("Conv", {"image", "W"}, {"x"}, {Attr::ints("pads", {1, 1, 1, 1})})
      .node("Div", {"x", "sqrt2"}, {"t"})
      .node("Erf", {"t"}, {"e"})
      .node("Add", {"e", "one"}, {"s"})
      .node("Mul", {"x", "s"}, {"p"})
      .node("Mul", {"p", "half"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)), 1u);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 6u);
  const Tensor image =
      Tensor::from(uniform_values(static_cast<size_t>(channels * size * size), 6, -2.0f, 2.0f, false),
                   {1, channels, size, size});
  // The unfused graph, also giving the convolution's output x for the bound.
  ModelBuilder with_x = b;
  with_x.output("x", DType::F32);
  const SessionOptions fast = options(ExecutionMode::Fast);
  const std::vector<float> fused = b.run({{"image", image}}, fast)[0].to_vector<float>();
  const std::vector<Tensor> plain = with_x.run({{"image", image}}, at_level(fast, OptimizationLevel::None));
  const std::vector<float> z = plain[0].to_vector<float>(), x = plain[1].to_vector<float>();
  ASSERT_EQ(fused.size(), z.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    const double want = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
    ASSERT_LE(std::fabs(static_cast<double>(fused[i]) - z[i]), 2.0 * bound(x[i], want)) << i;
  }
}

}  // namespace
}  // namespace onemodel::test

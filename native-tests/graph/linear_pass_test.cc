// linear-pack-fuse (graph-passes.md): MatMul or Gemm with a constant B, plus a following bias Add and
// activation, becomes one LinearOp. The pass preserves bits, so every case is compared byte for byte with the
// unfused graph in both modes, on every kernel path, with one and two threads; one case is also checked
// against exact mode's definition written out here as a plain float loop. The shapes cut the product into
// several row and column tiles with ragged edges and two k-blocks, so the epilogue sees partial tiles and
// rows that do not touch. The cases where the pass must leave nodes alone check the node count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "graph/passes/graph_pass.h"
#include "pass_test_util.h"

namespace onemodel::test {
namespace {

constexpr int64_t kBatch = 2, kSeq = 53, kK = 300, kN = 200;  // 106 rows, two k-blocks, ragged tiles

std::vector<Activation> activations() {
  std::vector<Activation> all = epilogue_activations();
  all.push_back({"Gelu", {}, {}});
  all.push_back({"Gelu", {Attr::s("approximate", "tanh")}, {}});
  return all;
}

Tensor weights(int64_t rows, int64_t cols, uint32_t seed) {
  return Tensor::from(uniform_values(static_cast<size_t>(rows * cols), seed, -1.0f, 1.0f, false),
                      {rows, cols});
}

// A bias with a NaN in one column, so exact mode's NaN rewrite of the addition is exercised.
std::vector<float> bias_values(int64_t n) {
  std::vector<float> v = uniform_values(static_cast<size_t>(n), 31, -1.0f, 1.0f, false);
  v[7] = std::numeric_limits<float>::quiet_NaN();
  return v;
}

Tensor rank3_input(bool specials) {
  return Tensor::from(uniform_values(static_cast<size_t>(kBatch * kSeq * kK), 5, -2.0f, 2.0f, specials),
                      {kBatch, kSeq, kK});
}

// x [batch, seq, k] -> MatMul(W [k, n]) -> y0 [-> Add(bias [n]) -> y1].
ModelBuilder matmul_model(bool with_bias, int64_t opset = 20, int64_t n = kN) {
  ModelBuilder b(opset);
  b.input("x", DType::F32, {-1, -1, kK})
      .initializer("W", weights(kK, n, 3))
      .node("MatMul", {"x", "W"}, {"y0"});
  if (with_bias) {
    b.initializer("bias", Tensor::from(bias_values(n), {n})).node("Add", {"y0", "bias"}, {"y1"});
  }
  return b;
}

TEST(LinearPackFuse, MatMulAloneAndWithBiasKeepTheBits) {
  ModelBuilder plain = matmul_model(false);
  plain.output("y0", DType::F32);
  ModelBuilder biased = matmul_model(true);
  biased.output("y1", DType::F32);
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(nodes_after_passes(biased, options(mode)), 1u);
    EXPECT_EQ(nodes_after_passes(biased, at_level(options(mode), OptimizationLevel::None)), 2u);
  }
  const Tensor x = rank3_input(true);
  expect_same_bits_as_unfused(plain, {{"x", x}}, "MatMul");
  expect_same_bits_as_unfused(biased, {{"x", x}}, "MatMul+Add");
}

// The weight moves into the fused node (which releases it once packed): the graph no longer holds it.
TEST(LinearPackFuse, TheGraphReleasesTheUnpackedWeight) {
  ModelBuilder b = matmul_model(true);
  b.output("y1", DType::F32);
  auto bytes = std::make_shared<std::vector<std::byte>>(b.bytes());
  auto model = std::make_shared<const ir::Model>(onnx::import_model(*bytes, bytes));
  for (auto level : {OptimizationLevel::All, OptimizationLevel::None}) {
    const CompiledGraph g(model, at_level(options(ExecutionMode::Exact), level));
    bool weight_held = false;
    for (const CompiledValue& v : g.values()) weight_held = weight_held || (v.name == "W" && v.constant);
    EXPECT_EQ(weight_held, level == OptimizationLevel::None);
  }
}

// Both widths: 200 columns is wider than every path's tile, so the activation runs over C after the product;
// 100 fits the vector paths' 128-column tiles, where it runs on each finished tile (scalar tiles are 64
// wide).
TEST(LinearPackFuse, EveryActivationKeepsTheBits) {
  const Tensor x = rank3_input(true);
  for (int64_t n : {kN, int64_t{100}}) {
    for (const Activation& a : activations()) {
      ModelBuilder b = matmul_model(true, 20, n);
      add_activation(b, a, "y1", "z");
      b.output("z", DType::F32);
      for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        EXPECT_EQ(nodes_after_passes(b, options(mode)), 1u) << a.op;
        EXPECT_EQ(nodes_after_passes(b, at_level(options(mode), OptimizationLevel::None)), 3u) << a.op;
      }
      expect_same_bits_as_unfused(b, {{"x", x}},
                                  "MatMul+Add+" + std::string(a.op) + " n " + std::to_string(n));
    }
  }
}

// A matrix A, a narrow product (tiles span whole rows, so the epilogue runs on touching rows), the bias as
// the Add's first operand with shape [1, n], and an activation straight after a MatMul without bias.
TEST(LinearPackFuse, MatrixInputsBiasFirstAndActivationWithoutBias) {
  constexpr int64_t m = 37, k = 24, n = 40;
  const Tensor x = Tensor::from(uniform_values(static_cast<size_t>(m * k), 9, -2.0f, 2.0f, true), {m, k});
  ModelBuilder b(14);
  b.input("x", DType::F32, {m, k})
      .initializer("W", weights(k, n, 4))
      .initializer("bias", Tensor::from(bias_values(n), {1, n}))
      .node("MatMul", {"x", "W"}, {"y0"})
      .node("Add", {"bias", "y0"}, {"y1"})
      .node("HardSwish", {"y1"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 1u);
  expect_same_bits_as_unfused(b, {{"x", x}}, "bias first");

  ModelBuilder c(14);
  c.input("x", DType::F32, {m, k})
      .initializer("W", weights(k, n, 4))
      .node("MatMul", {"x", "W"}, {"y0"})
      .node("Tanh", {"y0"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(c, options(ExecutionMode::Exact)), 1u);
  expect_same_bits_as_unfused(c, {{"x", x}}, "MatMul+Tanh");
}

// A vector A ([k] x [k, n] is [n]) with a [1, n] bias: the sum broadcasts to [1, n], as the Add would.
TEST(LinearPackFuse, VectorInputWithAMatrixBias) {
  constexpr int64_t k = 24, n = 40;
  ModelBuilder b(14);
  b.input("x", DType::F32, {k})
      .initializer("W", weights(k, n, 4))
      .initializer("bias", Tensor::from(bias_values(n), {1, n}))
      .node("MatMul", {"x", "W"}, {"y0"})
      .node("Add", {"y0", "bias"}, {"y1"})
      .node("Sigmoid", {"y1"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 1u);
  const Tensor x = Tensor::from(uniform_values(static_cast<size_t>(k), 9, -2.0f, 2.0f, false), {k});
  EXPECT_EQ(b.run({{"x", x}}, options(ExecutionMode::Exact))[0].shape(), (std::vector<int64_t>{1, n}));
  expect_same_bits_as_unfused(b, {{"x", x}}, "vector A");
}

struct GemmCase {
  const char* name;
  bool trans_b;
  float beta;
  bool has_c;
  std::vector<int64_t> c_dims;
  const char* activation;  // nullptr: none
};

TEST(LinearPackFuse, GemmWithCKeepsTheBits) {
  constexpr int64_t m = 106, k = 300, n = 200;
  const GemmCase cases[] = {{"C [n], beta 0.5, transB, Relu", true, 0.5f, true, {n}, "Relu"},
                            {"C [1, n]", false, 1.0f, true, {1, n}, nullptr},
                            {"scalar C, beta 2, Sigmoid", false, 2.0f, true, {}, "Sigmoid"},
                            {"C [1], beta 3", true, 3.0f, true, {1}, nullptr},
                            {"no C, Tanh", false, 1.0f, false, {}, "Tanh"}};
  const Tensor x = Tensor::from(uniform_values(static_cast<size_t>(m * k), 12, -2.0f, 2.0f, true), {m, k});
  for (const GemmCase& g : cases) {
    std::vector<float> c = bias_values(n);
    int64_t c_count = 1;
    for (int64_t d : g.c_dims) c_count *= d;
    c.resize(static_cast<size_t>(c_count));
    ModelBuilder b(13);
    b.input("x", DType::F32, {-1, k})
        .initializer("W", g.trans_b ? weights(n, k, 6) : weights(k, n, 6))
        .initializer("C", Tensor::from(c, g.c_dims));
    const std::vector<Attr> attrs = {Attr::i("transB", g.trans_b ? 1 : 0), Attr::f("beta", g.beta)};
    if (g.has_c)
      b.node("Gemm", {"x", "W", "C"}, {"y"}, attrs);
    else
      b.node("Gemm", {"x", "W"}, {"y"}, attrs);
    if (g.activation != nullptr) b.node(g.activation, {"y"}, {"z"});
    b.output(g.activation != nullptr ? "z" : "y", DType::F32);
    EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Exact)), 1u) << g.name;
    expect_same_bits_as_unfused(b, {{"x", x}}, std::string("Gemm ") + g.name);
  }
}

// Exact mode's definition (exact-mode.md, kernels-gemm.md): each output one float accumulator from +0 adding
// a*b in increasing k, every operation rounded on its own; then + bias, Relu; NaN as 0x7FC00000.
TEST(LinearPackFuse, ExactResultIsTheSequentialDefinition) {
  ModelBuilder b = matmul_model(true);
  b.node("Relu", {"y1"}, {"z"}).output("z", DType::F32);
  const Tensor x = rank3_input(true);
  const std::vector<float> xs = x.to_vector<float>(), w = weights(kK, kN, 3).to_vector<float>(),
                           bias = bias_values(kN);
  std::vector<float> want(static_cast<size_t>(kBatch * kSeq * kN));
  for (int64_t i = 0; i < kBatch * kSeq; ++i) {
    for (int64_t j = 0; j < kN; ++j) {
      volatile float acc = 0.0f;  // volatile: one rounding per operation whatever the optimiser does
      for (int64_t p = 0; p < kK; ++p) {
        const volatile float prod = xs[static_cast<size_t>(i * kK + p)] * w[static_cast<size_t>(p * kN + j)];
        acc = acc + prod;
      }
      float v = acc + bias[static_cast<size_t>(j)];
      if (v < 0.0f || v == 0.0f) v = 0.0f;  // Relu: -0 becomes +0, a NaN passes through
      if (std::isnan(v)) {
        const uint32_t canonical = 0x7FC00000u;
        std::memcpy(&v, &canonical, sizeof v);
      }
      want[static_cast<size_t>(i * kN + j)] = v;
    }
  }
  const Tensor expected = Tensor::from(want, {kBatch, kSeq, kN});
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      EXPECT_TRUE(same_bytes(b.run({{"x", x}}, options(ExecutionMode::Exact, path, threads))[0], expected))
          << path << " threads " << threads;
    }
  }
}

// One session, shapes changing between runs: each plan reuses the weight packed for the session's path.
TEST(LinearPackFuse, PlansOfOtherShapesShareThePackedWeight) {
  ModelBuilder b = matmul_model(true);
  b.node("Sigmoid", {"y1"}, {"z"}).output("z", DType::F32);
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Session fused = b.session(options(mode));
    Session plain = b.session(at_level(options(mode), OptimizationLevel::None));
    for (int64_t seq : {1, 53, 7, 130}) {
      const Tensor x =
          Tensor::from(uniform_values(static_cast<size_t>(seq * kK), 40, -2.0f, 2.0f, false), {1, seq, kK});
      EXPECT_TRUE(same_bytes(fused.run({{"x", x}})[0], plain.run({{"x", x}})[0])) << "seq " << seq;
    }
  }
}

TEST(LinearPackFuse, LeavesWhatItMustNotFuse) {
  const SessionOptions fast = options(ExecutionMode::Fast);
  const SessionOptions none = at_level(fast, OptimizationLevel::None);
  // B computed at run time: nothing to pack, so the MatMul, Add and Relu stay.
  ModelBuilder dynamic_b(14);
  dynamic_b.input("x", DType::F32, {4, kK})
      .input("w", DType::F32, {kK, kN})
      .initializer("bias", Tensor::from(bias_values(kN), {kN}))
      .node("MatMul", {"x", "w"}, {"y0"})
      .node("Add", {"y0", "bias"}, {"y1"})
      .node("Relu", {"y1"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(dynamic_b, fast), 3u);

  // A bias that varies along the rows too is no bias vector: the Add and the Relu after it stay.
  ModelBuilder matrix_bias = matmul_model(false, 14);
  matrix_bias.initializer("bias", weights(3, kN, 8))
      .node("Add", {"y0", "bias"}, {"y1"})
      .node("Relu", {"y1"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(matrix_bias, fast), 3u);
  const Tensor x =
      Tensor::from(uniform_values(static_cast<size_t>(2 * 3 * kK), 2, -1.0f, 1.0f, false), {2, 3, kK});
  expect_same_bits_as_unfused(matrix_bias, {{"x", x}}, "matrix bias");

  // The product read twice: the Add is not absorbed.
  ModelBuilder shared = matmul_model(true, 14);
  shared.node("Sigmoid", {"y0"}, {"s"}).output("y1", DType::F32).output("s", DType::F32);
  EXPECT_EQ(nodes_after_passes(shared, fast), nodes_after_passes(shared, none));
  expect_same_bits_as_unfused(shared, {{"x", x}}, "shared product");

  // The biased product is a graph output: the Add joins, the Relu after it does not.
  ModelBuilder output = matmul_model(true, 14);
  output.node("Relu", {"y1"}, {"z"}).output("z", DType::F32).output("y1", DType::F32);
  EXPECT_EQ(nodes_after_passes(output, fast), 2u);
  EXPECT_EQ(nodes_after_passes(output, none), 3u);
  expect_same_bits_as_unfused(output, {{"x", x}}, "output in the middle");

  // Gemm with alpha != 1, a batched constant B: not products the pass takes.
  ModelBuilder alpha(13);
  alpha.input("x", DType::F32, {4, kK})
      .initializer("W", weights(kK, kN, 3))
      .node("Gemm", {"x", "W"}, {"y"}, {Attr::f("alpha", 2.0f)})
      .node("Relu", {"y"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(alpha, fast), 2u);
  ModelBuilder batched(14);
  batched.input("x", DType::F32, {2, 4, kK})
      .initializer("W", Tensor::from(uniform_values(static_cast<size_t>(2 * kK * kN), 3, -1.0f, 1.0f, false),
                                     {2, kK, kN}))
      .node("MatMul", {"x", "W"}, {"y"})
      .node("Relu", {"y"}, {"z"})
      .output("z", DType::F32);
  EXPECT_EQ(nodes_after_passes(batched, fast), 2u);
}

}  // namespace
}  // namespace onemodel::test

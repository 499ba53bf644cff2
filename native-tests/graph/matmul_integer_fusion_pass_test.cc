// matmul-integer-fusion (int8.md "Graph rewrites"): MatMulInteger -> Cast(float) -> Mul(scale) [-> Add(bias)]
// becomes one MatMulIntegerToFloat node. The pass preserves bits, so the fused graph is compared byte for
// byte with the unfused one in both modes, on every kernel path, at one and two threads. The graphs are the
// shape ONNX Runtime's dynamic quantization writes (DynamicQuantizeLinear feeding the product, the scale a
// product of the activation's and the weight's scales). Each condition the pass checks is also broken once,
// and the product must then stay as written.
#include <gtest/gtest.h>

#include "graph/compiled_graph.h"
#include "pass_test_util.h"

namespace onemodel::test {
namespace {

constexpr int64_t kRows = 37, kK = 70, kN = 29;

struct Variant {
  DType weight = DType::I8;
  bool per_column_scale = true;
  bool with_bias = true;
  bool swap_operands = false;   // scale * product, bias + scaled
  bool cast_is_output = false;  // breaks "only reader"
  bool runtime_weight = false;  // breaks "constant B"
  bool matrix_scale = false;    // a [1, N] weight scale: rank 2
  bool bias_matrix = false;     // a [1, N] bias: the Add is left alone
};

// x -> DynamicQuantizeLinear -> MatMulInteger(W) -> Cast -> Mul(xs * ws) [-> Add(bias)] -> y.
ModelBuilder model(const Variant& v) {
  ModelBuilder b(13);
  b.input("x", DType::F32, {kRows, kK});
  if (v.runtime_weight)
    b.input("W", v.weight, {kK, kN});
  else
    b.initializer("W", random_8bit(v.weight, {kK, kN}, 11));
  std::vector<int64_t> scale_dims = v.per_column_scale ? std::vector<int64_t>{kN} : std::vector<int64_t>{};
  if (v.matrix_scale) scale_dims = {1, kN};
  const size_t scale_count = v.per_column_scale || v.matrix_scale ? kN : 1;
  b.initializer("ws", Tensor::from(uniform_values(scale_count, 13, 0.001f, 0.02f, false), scale_dims))
      .initializer("wz", scalar_8bit(v.weight, v.weight == DType::U8 ? 131 : -3))
      .node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"})
      .node("Mul", {"xs", "ws"}, {"scale"})
      .node("MatMulInteger", {"xq", "W", "xz", "wz"}, {"acc"})
      .node("Cast", {"acc"}, {"accf"}, {Attr::i("to", 1)});
  if (v.swap_operands)
    b.node("Mul", {"scale", "accf"}, {"scaled"});
  else
    b.node("Mul", {"accf", "scale"}, {"scaled"});
  if (v.with_bias) {
    std::vector<float> bias = uniform_values(kN, 17, -1.0f, 1.0f, false);
    bias[3] = std::numeric_limits<float>::quiet_NaN();  // exact mode's NaN rewrite of the addition
    b.initializer("bias",
                  Tensor::from(bias, v.bias_matrix ? std::vector<int64_t>{1, kN} : std::vector<int64_t>{kN}));
    if (v.swap_operands)
      b.node("Add", {"bias", "scaled"}, {"y"});
    else
      b.node("Add", {"scaled", "bias"}, {"y"});
  } else {
    b.node("Identity", {"scaled"}, {"y"});
  }
  b.output("y", DType::F32);
  if (v.cast_is_output) b.output("accf", DType::F32);
  return b;
}

std::vector<NamedTensor> inputs(const Variant& v) {
  std::vector<NamedTensor> in = {
      {"x", Tensor::from(uniform_values(kRows * kK, 7, -3.0f, 5.0f, false), {kRows, kK})}};
  if (v.runtime_weight) in.push_back({"W", random_8bit(v.weight, {kK, kN}, 11)});
  return in;
}

TEST(MatMulIntegerFusion, FusesTheDynamicQuantizationProductAndKeepsTheBits) {
  std::vector<Variant> variants;
  for (DType weight : {DType::I8, DType::U8}) {
    for (bool per_column : {false, true}) {
      for (bool bias : {false, true}) {
        Variant v;
        v.weight = weight;
        v.per_column_scale = per_column;
        v.with_bias = bias;
        variants.push_back(v);
      }
    }
  }
  Variant swapped;
  swapped.swap_operands = true;
  variants.push_back(swapped);
  for (const Variant& v : variants) {
    const ModelBuilder b = model(v);
    const std::string label = std::string(dtype_name(v.weight)) + (v.per_column_scale ? " per-column" : "") +
                              (v.with_bias ? " bias" : "") + (v.swap_operands ? " swapped" : "");
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      const SessionOptions o = options(mode);
      // The fused node keeps the last absorbed node (the Add or the Mul); the others are gone.
      EXPECT_EQ(nodes_of_type(b, o, "MatMulInteger"), 0u) << label;
      EXPECT_EQ(nodes_of_type(b, o, "Cast"), 0u) << label;
      EXPECT_EQ(nodes_after_passes(b, o) + (v.with_bias ? 3 : 2),
                nodes_after_passes(b, at_level(o, OptimizationLevel::None)))
          << label;
    }
    expect_same_bits_as_unfused(b, inputs(v), label);
  }
}

TEST(MatMulIntegerFusion, LeavesEveryBrokenPatternAsWritten) {
  Variant cast_output;
  cast_output.cast_is_output = true;
  Variant runtime_weight;
  runtime_weight.runtime_weight = true;
  Variant matrix_scale;
  matrix_scale.matrix_scale = true;
  for (const auto& [v, label] :
       {std::pair{cast_output, "cast read twice"}, std::pair{runtime_weight, "runtime B"},
        std::pair{matrix_scale, "rank-2 scale"}}) {
    const ModelBuilder b = model(v);
    EXPECT_EQ(nodes_of_type(b, options(ExecutionMode::Fast), "MatMulInteger"), 1u) << label;
    expect_same_bits_as_unfused(b, inputs(v), label);
  }
  // A [1, N] bias: the product up to the Mul is fused, the Add stays.
  Variant bias_matrix;
  bias_matrix.bias_matrix = true;
  const ModelBuilder b = model(bias_matrix);
  EXPECT_EQ(nodes_of_type(b, options(ExecutionMode::Fast), "MatMulInteger"), 0u);
  EXPECT_EQ(nodes_after_passes(b, options(ExecutionMode::Fast)) + 2,
            nodes_after_passes(b, at_level(options(ExecutionMode::Fast), OptimizationLevel::None)));
  expect_same_bits_as_unfused(b, inputs(bias_matrix), "[1, N] bias");
  // A Cast to another type.
  ModelBuilder to_double(13);
  to_double.input("a", DType::U8, {4, 5})
      .initializer("W", random_8bit(DType::U8, {5, 3}, 2))
      .initializer("s", Tensor::from(std::vector<double>{0.5}, {}))
      .node("MatMulInteger", {"a", "W"}, {"acc"})
      .node("Cast", {"acc"}, {"accd"}, {Attr::i("to", 11)})
      .node("Mul", {"accd", "s"}, {"y"})
      .output("y", DType::F64);
  EXPECT_EQ(nodes_of_type(to_double, options(ExecutionMode::Fast), "MatMulInteger"), 1u);
}

}  // namespace
}  // namespace onemodel::test

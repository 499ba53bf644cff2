// The project's quantized test models (tools/models/make_quantized_models.py: cnn-qdq and encoder-qdq, static
// QDQ; cnn-dynamic and encoder-dynamic, dynamic quantization) against ONNX Runtime's outputs recorded by
// tools/oracle/real-models.mjs, with the int8 metric of oracles.md (models/int8_metric.h): the 1st-percentile
// row cosine and, for outputs of rank 3 or more, the pooled cosine at least 0.99 (the metric's gate is
// min(0.99, floor), so 0.99 is never looser); for the classifiers, the class of every image agrees. The same
// statistics against ONNX Runtime's output of the float model must be no worse than ONNX Runtime's own
// int8-versus-float ones, less 0.01. Fast and exact mode both run; fast mode gives the same bits at 1 and 2
// threads, exact mode on every kernel path at 1 and 2 threads; the graph passes the models are built for
// (qdq, matmul-integer-fusion) must fire.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "graph/compiled_graph.h"
#include "models/int8_metric.h"
#include "models/recorded_models.h"
#include "ops/op_test_util.h"

namespace onemodel::test {
namespace {

// Nodes of `model` (in the cache) whose operator is `type` after the graph passes of `options`. The qdq and
// matmul-integer-fusion passes put the fused node in the place of the QuantizeLinear or the last absorbed
// node, so a product they rewrote leaves no node of its type.
size_t nodes_of_type(const std::string& model, const SessionOptions& options, std::string_view type) {
  auto ir =
      std::make_shared<const ir::Model>(onnx::import_model_file(cache_root() / "models" / (model + ".onnx")));
  size_t n = 0;
  const CompiledGraph graph(ir, options);
  for (const CompiledNode& node : graph.nodes()) n += node.ir->op_type == type ? 1 : 0;
  return n;
}

// An operator a pass rewrites: how many nodes of it the file holds and how many are left after the fast-mode
// passes.
struct Product {
  const char* type;
  size_t in_file, left;
};

struct QuantizedModel {
  const char* name;
  const char* float_model;
  bool decisions;  // a classifier: the argmax of each row is its answer
  std::vector<Product> products;
  bool pass_in_exact;  // the pass preserves bits, so exact mode rewrites the products too
};

class QuantizedModelTest : public ::testing::TestWithParam<QuantizedModel> {};

TEST_P(QuantizedModelTest, MeetsTheInt8MetricAgainstOnnxRuntime) {
  const QuantizedModel& m = GetParam();
  std::vector<Recorded> quantized, reference;
  std::string why;
  if (!load_recorded(m.name, quantized, why) || !load_recorded(m.float_model, reference, why))
    GTEST_SKIP() << "SKIPPED: " << why;
  ASSERT_EQ(quantized.size(), 1u);
  ASSERT_EQ(reference.size(), 1u);
  ASSERT_EQ(quantized[0].output_names, reference[0].output_names);

  SessionOptions unoptimised = options(ExecutionMode::Fast);
  unoptimised.optimization_level = OptimizationLevel::None;
  for (const auto& [type, in_file, left] : m.products) {
    EXPECT_EQ(nodes_of_type(m.name, unoptimised, type), in_file) << m.name << ": " << type << " in the file";
    EXPECT_EQ(nodes_of_type(m.name, options(ExecutionMode::Fast), type), left)
        << m.name << ": " << type << " left";
    if (m.pass_in_exact) {
      EXPECT_EQ(nodes_of_type(m.name, options(ExecutionMode::Exact), type), left)
          << m.name << ": " << type << " left in exact mode";
    }
  }

  const auto fast = run_model(m.name, quantized, ExecutionMode::Fast, "", 1);
  const auto fast2 = run_model(m.name, quantized, ExecutionMode::Fast, "", 2);
  const auto exact = run_model(m.name, quantized, ExecutionMode::Exact, "", 1);
  for (const std::string& path : kernel_paths()) {
    for (int threads : {1, 2}) {
      const auto other = run_model(m.name, quantized, ExecutionMode::Exact, path, threads);
      for (size_t i = 0; i < quantized[0].outputs.size(); ++i) {
        EXPECT_TRUE(same_bytes(other[0][i], exact[0][i]))
            << m.name << " " << quantized[0].output_names[i] << ": exact bits differ on " << path << " at "
            << threads << " threads";
      }
    }
  }
  for (size_t i = 0; i < quantized[0].outputs.size(); ++i) {
    const std::string& output = quantized[0].output_names[i];
    EXPECT_TRUE(same_bytes(fast[0][i], fast2[0][i]))
        << m.name << " " << output << ": fast differs at 2 threads";
    const Int8Stats ort_vs_float = int8_stats(quantized[0].outputs[i], reference[0].outputs[i]);
    for (const auto& [mode, got] : {std::pair{"fast", &fast}, std::pair{"exact", &exact}}) {
      const Int8Stats vs_ort = int8_stats((*got)[0][i], quantized[0].outputs[i]);
      const Int8Stats vs_float = int8_stats((*got)[0][i], reference[0].outputs[i]);
      const std::string where = std::string(m.name) + " " + output + " (" + mode + ")";
      EXPECT_GE(vs_ort.row_cosine, 0.99) << where;
      EXPECT_GE(vs_ort.pooled_cosine, 0.99) << where;
      if (m.decisions) {
        EXPECT_EQ(vs_ort.agreement, 1.0) << where;
      }
      EXPECT_GE(vs_float.row_cosine, ort_vs_float.row_cosine - 0.01) << where << " against the float model";
      EXPECT_GE(vs_float.pooled_cosine, ort_vs_float.pooled_cosine - 0.01)
          << where << " against the float model";
      std::printf(
          "[ int8 model ] %s: vs ORT int8: row cos %.6f, pooled %.6f, argmax %.4f, scaled error %.3g; vs ORT "
          "float: row cos %.6f (ORT int8 %.6f), argmax %.4f (ORT int8 %.4f)\n",
          where.c_str(), vs_ort.row_cosine, vs_ort.pooled_cosine, vs_ort.agreement,
          scaled_error((*got)[0][i], quantized[0].outputs[i]), vs_float.row_cosine, ort_vs_float.row_cosine,
          vs_float.agreement, ort_vs_float.agreement);
    }
  }
}

std::string model_name(const ::testing::TestParamInfo<QuantizedModel>& info) {
  std::string n = info.param.name;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(
    Issue6, QuantizedModelTest,
    ::testing::Values(QuantizedModel{"cnn-qdq", "cnn", true, {{"Conv", 4, 0}, {"Gemm", 1, 0}}, false},
                      // No pass rewrites ConvInteger: the dynamic convolutions run as written.
                      QuantizedModel{"cnn-dynamic", "cnn", true, {}, true},
                      QuantizedModel{
                          "encoder-dynamic", "encoder-fp32", false, {{"MatMulInteger", 12, 0}}, true},
                      // 12 weight products (qdq) and 4 attention products; the attention pass puts each
                      // layer's fused node in the place of its second product, so 2 MatMul nodes remain.
                      QuantizedModel{"encoder-qdq", "encoder-fp32", false, {{"MatMul", 16, 2}}, false}),
    model_name);

}  // namespace
}  // namespace onemodel::test

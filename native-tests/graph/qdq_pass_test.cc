// qdq (int8.md "Graph rewrites"; MatMul is our addition, docs/graph-passes.md): the quantize-dequantize form
// of a Conv, Gemm or MatMul becomes QLinearConv or QLinearMatMul. The pass changes results by rounding, so
// the rewritten graph is compared with the graph run as written (no passes): every output within one
// quantization step, and the int8 metric of oracles.md (row cosine at least 0.99). The rewrite must happen on
// the pattern (per-tensor and per-channel weights, with and without the int32 bias, uint8 and int8, Gemm with
// and without transB, MatMul with a batched activation), never in exact mode, and not at all when any one
// condition is broken.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "graph/compiled_graph.h"
#include "models/int8_metric.h"
#include "pass_test_util.h"

namespace onemodel::test {
namespace {

constexpr float kXScale = 0.05f, kYScale = 0.2f;

enum class Kind { Conv, Gemm, MatMul };

struct Pattern {
  Kind kind = Kind::Conv;
  bool trans_b = false;
  DType act = DType::U8;
  DType weight = DType::I8;
  bool per_channel = false;
  bool bias = true;
  // Broken conditions, one at a time.
  bool runtime_weight = false;
  bool vector_x_scale = false;
  bool product_read_twice = false;
  bool wrong_bias_scale = false;
  bool alpha_two = false;
  bool uneven_weight_zero_points = false;
  bool batched_weight = false;  // MatMul: a 3-D constant weight, one matrix per batch
};

constexpr int64_t kBatch = 2, kChannels = 3, kSize = 9, kOut = 5, kK = 3;  // conv: 2x3x9x9, 5 filters 3x3
constexpr int64_t kRows = 11, kDepth = 24, kCols = 7;  // gemm: 11x24 times 24x7; matmul: 2x11x24 times 24x7

const char* product_type(const Pattern& p) {
  return p.kind == Kind::Conv ? "Conv" : p.kind == Kind::Gemm ? "Gemm" : "MatMul";
}

std::vector<int64_t> x_dims(const Pattern& p) {
  if (p.kind == Kind::Conv) return {kBatch, kChannels, kSize, kSize};
  if (p.kind == Kind::Gemm) return {kRows, kDepth};
  return {kBatch, kRows, kDepth};
}

std::vector<int64_t> w_dims(const Pattern& p) {
  if (p.kind == Kind::Conv) return {kOut, kChannels, kK, kK};
  if (p.kind == Kind::Gemm)
    return p.trans_b ? std::vector<int64_t>{kCols, kDepth} : std::vector<int64_t>{kDepth, kCols};
  return p.batched_weight ? std::vector<int64_t>{kBatch, kDepth, kCols} : std::vector<int64_t>{kDepth, kCols};
}

// The weight axis of the output channels: Conv's filters, the columns of B otherwise.
int64_t channel_axis(const Pattern& p) {
  if (p.kind == Kind::Conv || p.trans_b) return 0;
  return static_cast<int64_t>(w_dims(p).size()) - 1;
}

// x (float) -> Q -> DQ -> Conv/Gemm/MatMul(DQ(W)[, DQ(bias)]) -> Q -> DQ -> y (float), as QDQ exporters
// write it.
ModelBuilder model(const Pattern& p) {
  ModelBuilder b(13);
  const int64_t channels = p.kind == Kind::Conv ? kOut : kCols;
  const int act_zero = p.act == DType::U8 ? 120 : -5;
  b.input("x", DType::F32, x_dims(p));
  if (p.runtime_weight)
    b.input("Wq", p.weight, w_dims(p));
  else
    b.initializer("Wq", random_8bit(p.weight, w_dims(p), 3));
  if (p.vector_x_scale) {  // per axis 1 (channels, or the Gemm's depth), all channels alike
    const int64_t n = x_dims(p)[1];
    Tensor xz(p.act, {n});
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(static_cast<std::byte*>(xz.raw()) + i, scalar_8bit(p.act, act_zero).raw(), 1);
    b.initializer("xs", Tensor::from(std::vector<float>(static_cast<size_t>(n), kXScale), {n}))
        .initializer("xz", xz);
  } else {
    b.initializer("xs", Tensor::from(std::vector<float>{kXScale}, {}))
        .initializer("xz", scalar_8bit(p.act, act_zero));
  }
  b.initializer("ys", Tensor::from(std::vector<float>{kYScale}, {}))
      .initializer("yz", scalar_8bit(p.act, p.act == DType::U8 ? 128 : 0));
  std::vector<float> w_scales =
      uniform_values(p.per_channel ? static_cast<size_t>(channels) : 1, 5, 0.002f, 0.01f, false);
  const std::vector<int64_t> s_dims = p.per_channel ? std::vector<int64_t>{channels} : std::vector<int64_t>{};
  b.initializer("ws", Tensor::from(w_scales, s_dims));
  Tensor wz(p.weight, s_dims);
  for (int64_t c = 0; c < wz.size(); ++c) {
    const int v = p.uneven_weight_zero_points && c == 1 ? 3 : (p.weight == DType::U8 ? 128 : 0);
    if (p.weight == DType::U8)
      wz.data<uint8_t>()[static_cast<size_t>(c)] = static_cast<uint8_t>(v);
    else
      wz.data<int8_t>()[static_cast<size_t>(c)] = static_cast<int8_t>(v);
  }
  b.initializer("wz", wz);
  b.node("QuantizeLinear", {"x", "xs", "xz"}, {"xq"})
      .node("DequantizeLinear", {"xq", "xs", "xz"}, {"xf"})
      .node("DequantizeLinear", {"Wq", "ws", "wz"}, {"wf"}, {Attr::i("axis", channel_axis(p))});
  if (p.bias) {
    std::vector<float> b_scales;
    for (float s : w_scales) b_scales.push_back(kXScale * s * (p.wrong_bias_scale ? 1.5f : 1.0f));
    std::vector<int32_t> bias(static_cast<size_t>(channels));
    for (size_t c = 0; c < bias.size(); ++c) bias[c] = static_cast<int32_t>(c * 3001) - 5000;
    b.initializer("bq", Tensor::from(bias, {channels}))
        .initializer("bs", Tensor::from(b_scales, s_dims))
        .node("DequantizeLinear", {"bq", "bs"}, {"bf"}, {Attr::i("axis", 0)});
  }
  std::vector<Attr> attrs;
  if (p.kind == Kind::Conv) attrs = {Attr::ints("pads", {1, 0, 1, 2}), Attr::ints("strides", {1, 2})};
  if (p.kind == Kind::Gemm) {
    attrs = {Attr::i("transB", p.trans_b ? 1 : 0)};
    if (p.alpha_two) attrs.push_back(Attr::f("alpha", 2.0f));
  }
  if (p.bias)
    b.node(product_type(p), {"xf", "wf", "bf"}, {"yf"}, attrs);
  else
    b.node(product_type(p), {"xf", "wf"}, {"yf"}, attrs);
  b.node("QuantizeLinear", {"yf", "ys", "yz"}, {"yq"}).node("DequantizeLinear", {"yq", "ys", "yz"}, {"y"});
  b.output("y", DType::F32);
  if (p.product_read_twice) b.output("yf", DType::F32);
  return b;
}

std::vector<NamedTensor> inputs(const Pattern& p) {
  const int64_t n = Shape::of(x_dims(p)).count();
  std::vector<NamedTensor> in = {
      {"x", Tensor::from(uniform_values(static_cast<size_t>(n), 9, -5.0f, 5.0f, false), x_dims(p))}};
  if (p.runtime_weight) in.push_back({"Wq", random_8bit(p.weight, w_dims(p), 3)});
  return in;
}

// The rewritten graph's outputs are within one step of the output scale of the graph as written, and meet the
// int8 metric's row cosine against it.
void expect_within_one_step(const Pattern& p, const std::string& label) {
  const ModelBuilder b = model(p);
  for (int threads : {1, 2}) {
    const SessionOptions o = options(ExecutionMode::Fast, "", threads);
    const std::vector<Tensor> fused = b.run(inputs(p), o);
    const std::vector<Tensor> plain = b.run(inputs(p), at_level(o, OptimizationLevel::None));
    const std::vector<float> f = elements_of<float>(fused[0]), w = elements_of<float>(plain[0]);
    ASSERT_EQ(f.size(), w.size()) << label;
    size_t moved = 0;
    for (size_t i = 0; i < f.size(); ++i) {
      ASSERT_LE(std::fabs(f[i] - w[i]), kYScale * 1.0001f) << label << " element " << i;
      moved += f[i] != w[i] ? 1 : 0;
    }
    EXPECT_LT(moved, f.size() / 4) << label << ": most elements should not move";
    EXPECT_GE(int8_stats(fused[0], plain[0]).row_cosine, 0.99) << label;
  }
}

TEST(QdqPass, RewritesConvGemmAndMatMulWithinOneStep) {
  std::vector<std::pair<Pattern, std::string>> patterns;
  for (Kind kind : {Kind::Conv, Kind::Gemm, Kind::MatMul}) {
    for (DType act : {DType::U8, DType::I8}) {
      for (bool per_channel : {false, true}) {
        for (bool bias : {false, true}) {
          if (kind == Kind::MatMul && bias) continue;  // MatMul has no bias input
          Pattern p;
          p.kind = kind;
          p.act = act;
          p.weight = act == DType::U8 && per_channel ? DType::U8 : DType::I8;
          p.per_channel = per_channel;
          p.bias = bias;
          patterns.push_back({p, std::string(product_type(p)) + " " + std::string(dtype_name(act)) +
                                     (per_channel ? " per-channel" : "") + (bias ? " bias" : "")});
        }
      }
    }
  }
  Pattern trans_b;
  trans_b.kind = Kind::Gemm;
  trans_b.trans_b = true;
  trans_b.per_channel = true;
  patterns.push_back({trans_b, "Gemm transB"});
  for (const auto& [p, label] : patterns) {
    const ModelBuilder b = model(p);
    EXPECT_EQ(nodes_of_type(b, options(ExecutionMode::Fast), product_type(p)), 0u) << label;
    // Exact mode runs the graph as written (the pass does not preserve bits).
    EXPECT_EQ(nodes_of_type(b, options(ExecutionMode::Exact), product_type(p)), 1u) << label;
    expect_within_one_step(p, label);
  }
}

TEST(QdqPass, LeavesEveryBrokenPatternAsWritten) {
  std::vector<std::pair<Pattern, std::string>> broken;
  auto add = [&](Pattern p, std::string label) { broken.push_back({p, std::move(label)}); };
  for (Kind kind : {Kind::Conv, Kind::Gemm, Kind::MatMul}) {
    Pattern base;
    base.kind = kind;
    base.per_channel = true;
    base.bias = kind != Kind::MatMul;
    const std::string type = std::string(product_type(base)) + " ";
    Pattern p = base;
    p.runtime_weight = true;
    add(p, type + "weights not constant");
    p = base;
    p.vector_x_scale = true;
    add(p, type + "activation scale not a single value");
    p = base;
    p.product_read_twice = true;
    add(p, type + "product read by a second node");
    p = base;
    p.uneven_weight_zero_points = true;
    add(p, type + "weight zero points differ between channels");
    p = base;
    if (kind == Kind::MatMul) {
      p.batched_weight = true;
      add(p, type + "3-D weight (one matrix per batch)");
    } else {
      p.wrong_bias_scale = true;
      add(p, type + "bias scale not sx * sw");
    }
  }
  Pattern alpha;
  alpha.kind = Kind::Gemm;
  alpha.alpha_two = true;
  add(alpha, "Gemm alpha 2");
  for (const auto& [p, label] : broken) {
    const ModelBuilder b = model(p);
    EXPECT_EQ(nodes_of_type(b, options(ExecutionMode::Fast), product_type(p)), 1u) << label;
    // Left as written, the other passes keep the bits of the graph run without any pass.
    const std::vector<Tensor> got = b.run(inputs(p), options(ExecutionMode::Fast));
    const std::vector<Tensor> plain =
        b.run(inputs(p), at_level(options(ExecutionMode::Fast), OptimizationLevel::None));
    ASSERT_EQ(got.size(), plain.size()) << label;
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(same_bytes(got[i], plain[i])) << label << " output " << i;
  }
}

}  // namespace
}  // namespace onemodel::test

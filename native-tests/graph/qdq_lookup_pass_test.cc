// qdq-lookup (graph-passes.md): DequantizeLinear -> Relu or Clip -> QuantizeLinear becomes a 256-entry byte
// lookup made by running the chain itself, so the graph must give the bytes of the chain as written in both
// modes, on every kernel path, at 1 and 2 threads (uint8 and int8 on both sides, omitted zero points, Clip
// with one or two bounds, saturating and non-finite scales). The chain must be left alone when any condition
// is broken.
#include <gtest/gtest.h>

#include <limits>

#include "pass_test_util.h"

namespace onemodel::test {
namespace {

struct Chain {
  std::string label;
  DType x = DType::U8, y = DType::U8;
  bool x_zero_point = true, y_zero_point = true;
  float x_scale = 0.05f, y_scale = 0.03f;
  Activation activation{"Relu", {}, {}};
  // Broken conditions, one at a time.
  bool dequantized_read_twice = false;
  bool runtime_y_scale = false;
  bool per_axis_x_scale = false;
};

constexpr int64_t kRows = 4, kCols = 300;

ModelBuilder model(const Chain& c) {
  ModelBuilder b(13);
  b.input("x", c.x, {kRows, kCols});
  if (c.per_axis_x_scale) {
    b.initializer("xs", Tensor::from(std::vector<float>(kRows, c.x_scale), {kRows}));
  } else {
    b.initializer("xs", Tensor::from(std::vector<float>{c.x_scale}, {}));
  }
  if (c.runtime_y_scale) {
    b.input("ys", DType::F32, {});
  } else {
    b.initializer("ys", Tensor::from(std::vector<float>{c.y_scale}, {}));
  }
  const int x_zero = c.x == DType::U8 ? 120 : -7;
  if (c.per_axis_x_scale) {  // one zero point per row too, all alike
    Tensor xz(c.x, {kRows});
    for (int64_t r = 0; r < kRows; ++r) static_cast<uint8_t*>(xz.raw())[r] = static_cast<uint8_t>(x_zero);
    b.initializer("xz", xz);
  } else {
    b.initializer("xz", scalar_8bit(c.x, x_zero));
  }
  b.initializer("yz", scalar_8bit(c.y, c.y == DType::U8 ? 3 : -100));
  if (c.x_zero_point)
    b.node("DequantizeLinear", {"x", "xs", "xz"}, {"f"}, {Attr::i("axis", 0)});
  else
    b.node("DequantizeLinear", {"x", "xs"}, {"f"}, {Attr::i("axis", 0)});
  add_activation(b, c.activation, "f", "a");
  if (c.y_zero_point)
    b.node("QuantizeLinear", {"a", "ys", "yz"}, {"y"});
  else
    b.node("QuantizeLinear", {"a", "ys"}, {"y"});
  b.output("y", c.y_zero_point ? c.y : DType::U8);
  if (c.dequantized_read_twice) b.output("f", DType::F32);
  return b;
}

std::vector<NamedTensor> inputs(const Chain& c) {
  Tensor x = random_8bit(c.x, {kRows, kCols}, 17);
  for (int b = 0; b < 256; ++b) static_cast<uint8_t*>(x.raw())[b] = static_cast<uint8_t>(b);  // every byte
  std::vector<NamedTensor> in = {{"x", x}};
  if (c.runtime_y_scale) in.push_back({"ys", Tensor::from(std::vector<float>{c.y_scale}, {})});
  return in;
}

size_t chain_nodes(const ModelBuilder& b, const SessionOptions& o, const Chain& c) {
  return nodes_of_type(b, o, "DequantizeLinear") + nodes_of_type(b, o, c.activation.op);
}

TEST(QdqLookupPass, GivesTheChainsBitsInBothModes) {
  std::vector<Chain> chains;
  chains.push_back({"uint8 Relu uint8"});
  Chain c;
  c.label = "int8 Clip(-0.5, 6) int8";
  c.x = c.y = DType::I8;
  c.activation = {"Clip", {}, {{"lo", -0.5f}, {"hi", 6.0f}}};
  chains.push_back(c);
  c = {};
  c.label = "uint8 (zero point omitted) Clip(lo) int8";
  c.x_zero_point = false;
  c.y = DType::I8;
  c.activation = {"Clip", {}, {{"lo", 0.25f}}};
  chains.push_back(c);
  c = {};
  c.label = "int8 Relu uint8 (zero point omitted), saturating";
  c.x = DType::I8;
  c.y_zero_point = false;
  c.y_scale = 0.001f;
  chains.push_back(c);
  c = {};
  c.label = "uint8 Relu int8, infinite scales";
  c.y = DType::I8;
  c.x_scale = std::numeric_limits<float>::infinity();
  c.y_scale = std::numeric_limits<float>::infinity();
  chains.push_back(c);
  for (const Chain& chain : chains) {
    const ModelBuilder b = model(chain);
    for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      EXPECT_EQ(chain_nodes(b, options(mode), chain), 0u) << chain.label;
      EXPECT_EQ(nodes_after_passes(b, options(mode)), 1u) << chain.label;
    }
    expect_same_bits_as_unfused(b, inputs(chain), chain.label);
  }
}

TEST(QdqLookupPass, LeavesEveryBrokenChainAsWritten) {
  std::vector<Chain> broken;
  Chain c;
  c.label = "Sigmoid (rounds, may differ between paths in fast mode)";
  c.activation = {"Sigmoid", {}, {}};
  broken.push_back(c);
  c = {};
  c.label = "dequantized value read twice";
  c.dequantized_read_twice = true;
  broken.push_back(c);
  c = {};
  c.label = "output scale computed at run time";
  c.runtime_y_scale = true;
  broken.push_back(c);
  c = {};
  c.label = "per-axis input scale";
  c.per_axis_x_scale = true;
  broken.push_back(c);
  for (const Chain& chain : broken) {
    const ModelBuilder b = model(chain);
    EXPECT_EQ(chain_nodes(b, options(ExecutionMode::Fast), chain), 2u) << chain.label;
    expect_same_bits_as_unfused(b, inputs(chain), chain.label);
  }
}

}  // namespace
}  // namespace onemodel::test

// Helpers for the tests of single graph passes: options at a level, the node counts left after the passes,
// seeded inputs (float and 8-bit), and the "same bits as the unfused graph on every path and thread count"
// check.
#pragma once

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "graph/compiled_graph.h"
#include "ops/op_test_util.h"

namespace onemodel::test {

inline SessionOptions at_level(SessionOptions o, OptimizationLevel level) {
  o.optimization_level = level;
  return o;
}

// Nodes left after the passes these options select.
inline size_t nodes_after_passes(const ModelBuilder& b, const SessionOptions& options) {
  auto bytes = std::make_shared<std::vector<std::byte>>(b.bytes());
  auto model = std::make_shared<const ir::Model>(onnx::import_model(*bytes, bytes));
  return CompiledGraph(model, options).nodes().size();
}

// Nodes of the compiled graph (after the passes of `options`) whose model operator is `type`.
inline size_t nodes_of_type(const ModelBuilder& b, const SessionOptions& options, std::string_view type) {
  auto bytes = std::make_shared<std::vector<std::byte>>(b.bytes());
  auto model = std::make_shared<const ir::Model>(onnx::import_model(*bytes, bytes));
  const CompiledGraph g(model, options);
  size_t n = 0;
  for (const CompiledNode& node : g.nodes()) n += node.ir->op_type == type ? 1 : 0;
  return n;
}

// A uint8 or int8 scalar.
inline Tensor scalar_8bit(DType type, int value) {
  Tensor t(type, {});
  if (type == DType::U8)
    t.data<uint8_t>()[0] = static_cast<uint8_t>(value);
  else
    t.data<int8_t>()[0] = static_cast<int8_t>(value);
  return t;
}

// Seeded uint8 or int8 values over the type's whole range.
inline Tensor random_8bit(DType type, std::vector<int64_t> dims, uint32_t seed) {
  Tensor t(type, std::move(dims));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.size(); ++i) {
    const auto r = static_cast<int>(rng() % 256);
    if (type == DType::U8)
      t.data<uint8_t>()[static_cast<size_t>(i)] = static_cast<uint8_t>(r);
    else
      t.data<int8_t>()[static_cast<size_t>(i)] = static_cast<int8_t>(r - 128);
  }
  return t;
}

// Uniform in [lo, hi); with `specials`, a NaN, +-inf and -0 at fixed places.
inline std::vector<float> uniform_values(size_t n, uint32_t seed, float lo, float hi, bool specials) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  if (specials && n > 8) {
    v[1] = std::numeric_limits<float>::quiet_NaN();
    v[3] = std::numeric_limits<float>::infinity();
    v[5] = -0.0f;
    v[n - 2] = -std::numeric_limits<float>::infinity();
  }
  return v;
}

// An activation a fusing pass takes into its epilogue (graph-passes.md's list), with Clip's bounds.
struct Activation {
  const char* op;
  std::vector<Attr> attrs;
  std::vector<std::pair<const char*, float>> bounds;  // Clip's inputs
};

// The list both product passes fuse; Gelu (opset 20) is added by the tests whose models allow it.
inline std::vector<Activation> epilogue_activations() {
  return {{"Relu", {}, {}},
          {"Clip", {}, {{"lo", 0.0f}, {"hi", 6.0f}}},
          {"Clip", {}, {{"lo", -0.5f}}},
          {"HardSigmoid", {Attr::f("alpha", 0.2f), Attr::f("beta", 0.5f)}, {}},
          {"HardSwish", {}, {}},
          {"LeakyRelu", {Attr::f("alpha", 0.1f)}, {}},
          {"Sigmoid", {}, {}},
          {"Tanh", {}, {}}};
}

// in -> activation -> out, with Clip's bounds as constants.
inline void add_activation(ModelBuilder& b, const Activation& a, std::string_view in, std::string_view out) {
  for (const auto& [name, value] : a.bounds) b.initializer(name, Tensor::from(std::vector<float>{value}, {}));
  if (a.bounds.size() == 2) b.node(a.op, {in, "lo", "hi"}, {out}, a.attrs);
  if (a.bounds.size() == 1) b.node(a.op, {in, "lo"}, {out}, a.attrs);
  if (a.bounds.empty()) b.node(a.op, {in}, {out}, a.attrs);
}

// Both modes, every kernel path, one and two threads: the graph gives the same bytes with and without passes.
inline void expect_same_bits_as_unfused(const ModelBuilder& b, const std::vector<NamedTensor>& inputs,
                                        const std::string& label) {
  for (auto mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (const std::string& path : kernel_paths()) {
      for (int threads : {1, 2}) {
        const SessionOptions o = options(mode, path, threads);
        const std::vector<Tensor> fused = b.run(inputs, o);
        const std::vector<Tensor> plain = b.run(inputs, at_level(o, OptimizationLevel::None));
        ASSERT_EQ(fused.size(), plain.size()) << label;
        for (size_t i = 0; i < fused.size(); ++i) {
          EXPECT_TRUE(same_bytes(fused[i], plain[i]))
              << label << " output " << i << " " << path << " threads " << threads
              << (mode == ExecutionMode::Exact ? " exact" : " fast");
        }
      }
    }
  }
}

}  // namespace onemodel::test

// LeakyRelu, HardSigmoid and HardSwish on f32 (ops-elementwise.md "Function definitions"): a multiply, an add
// and selects, each rounded separately (the build never contracts to FMA), so fast and exact agree bit for
// bit apart from exact mode's NaN rewrite. NaN passes through every one of them.
#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

struct F32Only {
  template <class E>
  static constexpr bool serves = E::dtype == DType::F32;
};

// A select that lets NaN through: neither comparison holds for it.
inline float clamp_unit(float v) {
  v = select_value(v < 0.0f, 0.0f, v);
  return select_value(v > 1.0f, 1.0f, v);
}

struct LeakyReluOp : F32Only {
  float alpha;
  float operator()(float x) const { return select_value(x < 0.0f, alpha * x, x); }
};

struct HardSigmoidOp : F32Only {
  float alpha, beta;
  float operator()(float x) const { return clamp_unit(alpha * x + beta); }
};

struct HardSwishOp : F32Only {
  float operator()(float x) const { return x * clamp_unit(x * 0.16666667f + 0.5f); }
};

}  // namespace

std::unique_ptr<OpKernel> make_leaky_relu(const NodeInfo& node) {
  return make_unary_elementwise(node, LeakyReluOp{{}, node.get_float("alpha", 0.01f)});
}
std::unique_ptr<OpKernel> make_hard_sigmoid(const NodeInfo& node) {
  return make_unary_elementwise(
      node, HardSigmoidOp{{}, node.get_float("alpha", 0.2f), node.get_float("beta", 0.5f)});
}
std::unique_ptr<OpKernel> make_hard_swish(const NodeInfo& node) {
  return make_unary_elementwise<HardSwishOp>(node);
}

}  // namespace onemodel::ops

// LeakyRelu, HardSigmoid, HardSwish, Softsign, Shrink and ThresholdedRelu on f32 (ops-elementwise.md
// "Function definitions"): multiplies, adds, a division and selects, each rounded separately (the build never
// contracts to FMA), so fast and exact agree bit for bit apart from exact mode's NaN rewrite. NaN passes
// through every one of them, also where the ONNX formula's "otherwise 0" branch would catch it (Shrink,
// ThresholdedRelu), as it does for Relu.
#include <cmath>

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

// x / (1 + |x|); for |x| = inf that is inf / inf, so the limit +-1 is selected there.
struct SoftsignOp : F32Only {
  float operator()(float x) const {
    const float ax = std::fabs(x);
    return select_value(ax == __builtin_inff(), std::copysign(1.0f, x), x / (1.0f + ax));
  }
};

struct ShrinkOp : F32Only {
  float lambd, bias;
  float operator()(float x) const {
    const float shrunk = select_value(x < -lambd, x + bias, select_value(x > lambd, x - bias, 0.0f));
    return select_value(x != x, x, shrunk);
  }
};

struct ThresholdedReluOp : F32Only {
  float alpha;
  float operator()(float x) const { return select_value(x > alpha || x != x, x, 0.0f); }
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

std::unique_ptr<OpKernel> make_softsign(const NodeInfo& node) {
  return make_unary_elementwise<SoftsignOp>(node);
}
std::unique_ptr<OpKernel> make_shrink(const NodeInfo& node) {
  return make_unary_elementwise(node,
                                ShrinkOp{{}, node.get_float("lambd", 0.5f), node.get_float("bias", 0.0f)});
}
std::unique_ptr<OpKernel> make_thresholded_relu(const NodeInfo& node) {
  return make_unary_elementwise(node, ThresholdedReluOp{{}, node.get_float("alpha", 1.0f)});
}

}  // namespace onemodel::ops

// LpPool and GlobalLpPool, float32, fast mode only (std::pow is not one of exact mode's operations): a
// window's taps inside the input give (sum |x|^p)^(1/p), summed in depth, height, width order from +0; taps
// in the padding add nothing. p = 1 and p = 2 avoid pow for the terms (|x| and x * x, then a square root).
#include <cmath>
#include <string>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/pool/factories.h"
#include "graph/ops/pool/pool_geometry.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

struct LpNorm {
  int64_t p;
  float term(float v) const {
    if (p == 1) return std::fabs(v);
    if (p == 2) return v * v;
    return std::pow(std::fabs(v), static_cast<float>(p));
  }
  float root(float sum) const {
    if (p == 1) return sum;
    if (p == 2) return std::sqrt(sum);
    return std::pow(sum, 1.0f / static_cast<float>(p));
  }
};

// One plane of LpPool; every window goes through at().
struct LpWindows {
  const PoolGeometry& g;
  const float* in;
  float* out;
  LpNorm norm;

  void at(int64_t od, int64_t oh, int64_t ow) const {
    const float sum = window_sum(g, in, od, oh, ow, [this](float v) { return norm.term(v); });
    out[(od * g.axes[1].out + oh) * g.axes[2].out + ow] = canonicalize(norm.root(sum));
  }
  void row(int64_t od, int64_t oh, int64_t begin, int64_t end) const {
    for (int64_t ow = begin; ow < end; ++ow) at(od, oh, ow);
  }
};

class LpPool final : public FloatWindowPool {
 public:
  LpPool(const NodeInfo& node, int64_t p)
      : FloatWindowPool(PoolAttributes(node, node.opset() >= 18)), norm_{p} {}

  void run(const OpRun& run) const override {
    run_planes(run, 2.0, false, [&](const PoolGeometry& g, const float* in, float* out) {
      return LpWindows{g, in, out, norm_};
    });
  }

 private:
  LpNorm norm_;
};

class GlobalLpPool final : public OpKernel {
 public:
  explicit GlobalLpPool(int64_t p) : norm_{p} {}
  void infer(InferContext& ctx) const override { infer_global_pool(ctx); }
  void run(const OpRun& run) const override {
    fold_planes(
        run, 0.0f, [this](float sum, float v) { return sum + norm_.term(v); },
        [this](float sum) { return canonicalize(norm_.root(sum)); });
  }

 private:
  LpNorm norm_;
};

int64_t lp_order(const NodeInfo& node) {
  const int64_t p = node.get_int("p", 2);
  if (p < 1) node.fail("p must be at least 1");
  return p;
}

}  // namespace

std::unique_ptr<OpKernel> make_lp_pool(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<LpPool>(node, lp_order(node));
}

std::unique_ptr<OpKernel> make_global_lp_pool(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<GlobalLpPool>(lp_order(node));
}

}  // namespace onemodel::ops

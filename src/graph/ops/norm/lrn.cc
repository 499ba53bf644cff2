// LRN (local response normalisation across channels), float32, input N x C x D1 x ... x Dk:
// y = x / (bias + (alpha / size) * s)^beta with s the sum of squares over channels
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to [0, C - 1], added in increasing channel
// order. The power is the platform's powf, which is not bit-reproducible across machines, so LRN has no exact
// kernel (ops-coverage.md "Exactness") and exact mode refuses it.
#include <algorithm>
#include <cmath>
#include <string>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/norm/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Lrn final : public OpKernel {
 public:
  Lrn(int64_t size, float alpha, float beta, float bias)
      : size_(size), alpha_(alpha), beta_(beta), bias_(bias) {
    supports_exact = false;
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) unsupported_type(ctx, ctx.input_dtype(0));
    const Shape& x = ctx.input_shape(0);
    if (x.rank < 2) ctx.fail("the input needs a batch and a channel axis");
    ctx.set_output(0, DType::F32, x);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int64_t images = x.shape[0], channels = x.shape[1], plane = x.shape.count(2, x.shape.rank);
    if (images * channels * plane == 0) return;
    const int64_t below = (size_ - 1) / 2, above = size_ - 1 - below;  // floor and ceil of (size - 1) / 2
    const float scale = alpha_ / static_cast<float>(size_);
    const float* src = x.as<const float>();
    float* dst = run.outputs[0].as<float>();
    // One chunk per (image, channel) plane; every plane reads its neighbours in the input only.
    auto plane_of = [&](int64_t chunk) {
      const int64_t image = chunk / channels, c = chunk % channels;
      const int64_t first = std::max<int64_t>(0, c - below), last = std::min(channels - 1, c + above);
      const float* base = src + image * channels * plane;
      float* out = dst + chunk * plane;
      for (int64_t p = 0; p < plane; ++p) {
        float squares = 0.0f;
        for (int64_t i = first; i <= last; ++i) {
          const float v = base[i * plane + p];
          squares += v * v;
        }
        out[p] = base[c * plane + p] / std::pow(bias_ + scale * squares, beta_);
      }
    };
    parallel_for(run.threads, images * channels, plane_of,
                 20.0 * static_cast<double>(images * channels * plane));
  }

 private:
  int64_t size_;
  float alpha_, beta_, bias_;
};

}  // namespace

std::unique_ptr<OpKernel> make_lrn(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  if (node.find("size") == nullptr) node.fail("attribute 'size' is required");
  const int64_t size = node.get_int("size", 1);
  if (size < 1) node.fail("attribute 'size' must be at least 1, got " + std::to_string(size));
  return std::make_unique<Lrn>(size, node.get_float("alpha", 0.0001f), node.get_float("beta", 0.75f),
                               node.get_float("bias", 1.0f));
}

}  // namespace onemodel::ops

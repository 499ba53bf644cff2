// BatchNormalization in inference form (ops-conv.md "BatchNormalization"), float32: per channel
// a = scale / sqrt(var + epsilon) and b = bias - mean * a, then y = x * a + b, every operation rounded on its
// own. Only IEEE operations that round once are used, so fast and exact mode give the same bits; NaN results
// are canonical in both. The output may overwrite the input.
#include <algorithm>
#include <cmath>
#include <string>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

class BatchNorm final : public OpKernel {
 public:
  explicit BatchNorm(float epsilon) : epsilon_(epsilon) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    for (size_t i = 0; i < 5; ++i) {
      if (ctx.input_dtype(i) != DType::F32) unsupported_type(ctx, ctx.input_dtype(i));
    }
    const Shape& x = ctx.input_shape(0);
    if (x.rank < 2) ctx.fail("the input needs a batch and a channel axis");
    static const char* const kNames[] = {"", "scale", "B", "input_mean", "input_var"};
    for (size_t i = 1; i < 5; ++i) {
      const Shape& p = ctx.input_shape(i);
      if (p.rank != 1 || p[0] != x[1]) {
        ctx.fail(std::string(kNames[i]) + " must hold one value per channel (" + std::to_string(x[1]) + ")");
      }
    }
    ctx.set_output(0, DType::F32, x);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int64_t channels = x.shape[1], plane = x.shape.count(2, x.shape.rank);
    const float* src = x.as<const float>();
    const float* scale = run.inputs[1].as<const float>();
    const float* bias = run.inputs[2].as<const float>();
    const float* mean = run.inputs[3].as<const float>();
    const float* var = run.inputs[4].as<const float>();
    float* dst = run.outputs[0].as<float>();
    if (plane == 0) return;
    // Chunks of the flat tensor; a chunk may start or end inside a plane.
    for_each_chunk(run.threads, x.count(), 0.5, [&](int64_t begin, int64_t end) {
      while (begin < end) {
        const int64_t c = (begin / plane) % channels;
        const int64_t stop = std::min(end, (begin / plane + 1) * plane);
        const float a = scale[c] / std::sqrt(var[c] + epsilon_);
        const float b = bias[c] - mean[c] * a;
        affine(src + begin, dst + begin, stop - begin, a, b);
        begin = stop;
      }
    });
  }

 private:
  // y = x * a + b with two roundings; in and out may be the same memory. A flat loop the compiler vectorises.
  static void affine(const float* in, float* out, int64_t n, float a, float b) {
    for (int64_t i = 0; i < n; ++i) out[i] = canonicalize(in[i] * a + b);
  }

  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_batch_norm(const NodeInfo& node) {
  require_inputs(node, 5, 5);
  if (node.get_int("training_mode", 0) != 0) {
    node.unsupported("BatchNormalization: training_mode = 1 is not supported");
  }
  if (node.opset() < 9 && node.get_int("spatial", 1) != 1) {
    node.unsupported("BatchNormalization: spatial = 0 is not supported");
  }
  const auto& outputs = node.node().outputs;
  for (size_t i = 1; i < outputs.size(); ++i) {
    if (outputs[i] >= 0)
      node.unsupported("BatchNormalization: the running statistics outputs are not supported");
  }
  return std::make_unique<BatchNorm>(node.get_float("epsilon", 1e-5f));
}

}  // namespace onemodel::ops

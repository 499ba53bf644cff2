// BatchNormalization in inference form (ops-conv.md "BatchNormalization"), float32: per channel
// a = scale / sqrt(var + epsilon) and b = bias - mean * a, then y = x * a + b, every operation rounded on its
// own. Only IEEE operations that round once are used, so fast and exact mode give the same bits; NaN results
// are canonical in both. The output may overwrite the input.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "graph/ops/elementwise/common.h"
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

  // The per-channel a and b, computed once per plan when all four parameters are constants.
  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const float* params[4];
    for (size_t i = 0; i < 4; ++i) {
      const TensorRef* p = ctx.input_value(i + 1);
      if (p == nullptr) return nullptr;
      params[i] = p->as<const float>();
    }
    const int64_t channels = ctx.input_shape(1)[0];
    auto ab = std::make_shared<std::vector<float>>(static_cast<size_t>(2 * channels));
    coefficients(params, channels, ab->data());
    return ab;
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int64_t channels = x.shape[1], plane = x.shape.count(2, x.shape.rank);
    if (plane == 0 || channels == 0) return;
    const float* ab = nullptr;
    if (run.state != nullptr) {
      ab = static_cast<const std::vector<float>*>(run.state)->data();
    } else {
      const float* params[4];
      for (size_t i = 0; i < 4; ++i) params[i] = run.inputs[i + 1].as<const float>();
      auto* computed =
          static_cast<float*>(run.scratch->allocate(static_cast<size_t>(2 * channels) * sizeof(float)));
      coefficients(params, channels, computed);
      ab = computed;
    }
    const float* src = x.as<const float>();
    float* dst = run.outputs[0].as<float>();
    const auto affine = run.kernels->affine;  // two roundings, NaN canonical, in place allowed
    // Chunks of the flat tensor; a chunk may start or end inside a plane.
    for_each_chunk(run.threads, x.count(), 0.5, [&](int64_t begin, int64_t end) {
      while (begin < end) {
        const int64_t c = (begin / plane) % channels;
        const int64_t stop = std::min(end, (begin / plane + 1) * plane);
        affine(true, src + begin, ab[c], ab[channels + c], dst + begin, static_cast<size_t>(stop - begin));
        begin = stop;
      }
    });
  }

 private:
  // ab[c] = scale / sqrt(var + epsilon) and ab[channels + c] = bias - mean * ab[c] from params = {scale,
  // bias, mean, var}.
  void coefficients(const float* const* params, int64_t channels, float* ab) const {
    const float *scale = params[0], *bias = params[1], *mean = params[2], *var = params[3];
    for (int64_t c = 0; c < channels; ++c) {
      ab[c] = scale[c] / std::sqrt(var[c] + epsilon_);
      ab[channels + c] = bias[c] - mean[c] * ab[c];
    }
  }

  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_batch_norm(const NodeInfo& node) {
  require_inputs(node, 5, 5);
  if (node.get_int("training_mode", 0) != 0) {
    node.unsupported("BatchNormalization: training_mode = 1 is not supported");
  }
  // Before opset 7 the inference form is the one with is_test = 1 (consumed_inputs, before 6, is only an
  // optimisation hint).
  if (node.opset() < 7 && node.get_int("is_test", 0) == 0) {
    node.unsupported("BatchNormalization: is_test = 0 (training) is not supported");
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

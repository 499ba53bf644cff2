// BatchNormalization (ops-conv.md "BatchNormalization"), float32: per channel a = scale / sqrt(var + epsilon)
// and b = bias - mean * a, then y = x * a + b, every operation rounded on its own. In inference form mean and
// var are the inputs; with training_mode = 1 (opset 14+) they are the batch's own statistics over every axis
// but the channel, in the canonical sum order of ops-norms.md: mean = Sum16(x) / n and the population
// variance var = Sum16((x - mean)^2) / n, terms in memory order (batch, then position in the plane). The
// optional outputs 1 and 2 are then the running statistics input * momentum + batch * (1 - momentum). Only
// IEEE operations that round once are used, so fast and exact mode give the same bits on every path and
// thread count; NaN results are canonical in both. The output may overwrite the input.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/reduce/canonical_sum.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

class BatchNorm final : public OpKernel {
 public:
  BatchNorm(float epsilon, bool training, float momentum)
      : epsilon_(epsilon), training_(training), momentum_(momentum) {
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
    for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, DType::F32, ctx.input_shape(3));
  }

  // The per-channel a and b, computed once per plan when all four parameters are constants.
  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    if (training_) return nullptr;  // the statistics come from the data
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
    const float* batch_stats = training_ ? batch_statistics(run) : nullptr;
    if (plane == 0 || channels == 0) return;
    const float* ab = nullptr;
    if (run.state != nullptr) {
      ab = static_cast<const std::vector<float>*>(run.state)->data();
    } else {
      const float* params[4];
      for (size_t i = 0; i < 4; ++i) params[i] = run.inputs[i + 1].as<const float>();
      if (batch_stats != nullptr) {
        params[2] = batch_stats;
        params[3] = batch_stats + channels;
      }
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

  // Training: the batch mean and variance of every channel (2 * channels floats of scratch: means, then
  // variances), also folded into the running statistics outputs that are present. Each channel's sums are
  // sequential, so the thread count cannot change them.
  const float* batch_statistics(const OpRun& run) const {
    const TensorRef& x = run.inputs[0];
    const int64_t batch = x.shape[0], channels = x.shape[1], plane = x.shape.count(2, x.shape.rank);
    float* stats = run.scratch->allocate_array<float>(static_cast<size_t>(2 * channels));
    const float* src = x.as<const float>();
    const auto n = static_cast<float>(batch * plane);
    for (int64_t c = 0; c < channels; ++c) {
      CanonicalSum<float, FloatAdd> sum({}), squares({});
      for (int64_t b = 0; b < batch; ++b) {
        const float* row = src + (b * channels + c) * plane;
        sum.add(plane, [&](int64_t j) { return row[j]; });
      }
      const float mean = sum.total() / n;
      for (int64_t b = 0; b < batch; ++b) {
        const float* row = src + (b * channels + c) * plane;
        squares.add(plane, [&](int64_t j) {
          const float d = row[j] - mean;
          return d * d;
        });
      }
      stats[c] = mean;
      stats[channels + c] = squares.total() / n;
    }
    const float keep = momentum_, take = 1.0f - momentum_;
    for (size_t i = 1; i < 3 && i < run.outputs.size(); ++i) {
      if (run.outputs[i].data == nullptr) continue;
      const float* running = run.inputs[i + 2].as<const float>();
      const float* current = stats + (i - 1) * channels;
      float* out = run.outputs[i].as<float>();
      for (int64_t c = 0; c < channels; ++c) out[c] = canonicalize(running[c] * keep + current[c] * take);
    }
    return stats;
  }

  float epsilon_;
  bool training_;
  float momentum_;
};

}  // namespace

std::unique_ptr<OpKernel> make_batch_norm(const NodeInfo& node) {
  require_inputs(node, 5, 5);
  // training_mode exists from opset 14, which also cut the outputs to Y and the two running statistics.
  const bool training = node.opset() >= 14 && node.get_int("training_mode", 0) != 0;
  if (node.opset() >= 14 && node.num_outputs() > 3) node.fail("has more than 3 outputs");
  // Before opset 7 the inference form is the one with is_test = 1 (consumed_inputs, before 6, is only an
  // optimisation hint); is_test = 0 is that version's training form.
  if (node.opset() < 7 && node.get_int("is_test", 0) == 0) {
    node.unsupported("BatchNormalization: is_test = 0 (training) is not supported");
  }
  if (node.opset() < 9 && node.get_int("spatial", 1) != 1) {
    node.unsupported("BatchNormalization: spatial = 0 is not supported");
  }
  const auto& outputs = node.node().outputs;
  for (size_t i = 1; i < outputs.size(); ++i) {
    if (outputs[i] >= 0 && !training)
      node.unsupported("BatchNormalization: the running statistics outputs are not supported");
  }
  return std::make_unique<BatchNorm>(node.get_float("epsilon", 1e-5f), training,
                                     node.get_float("momentum", 0.9f));
}

}  // namespace onemodel::ops

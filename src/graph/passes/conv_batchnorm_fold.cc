// conv-batchnorm-fold (fast mode only): a Conv whose only reader is a BatchNormalization with constant
// statistics becomes one Conv with W' = W * s per output channel and b' = (b - mean) * s + beta, where
// s = scale / sqrt(var + epsilon). Everything is computed in double and rounded to float once. The scale now
// applies to each product before the sum instead of to the sum, so the last bits differ from the unfused
// graph.
#include <cmath>

#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

// A float32 constant of rank 1 holding `count` values.
const float* per_channel(const PassGraph& g, int32_t v, int64_t count) {
  const TensorRef* t = g.constant(v);
  if (!t || t->dtype != DType::F32 || t->shape.rank != 1 || t->shape[0] != count) return nullptr;
  return t->as<const float>();
}

// Folds node `conv` into the BatchNormalization at `bn` when both qualify; returns whether it did.
bool fold(PassGraph& g, size_t conv, size_t bn) {
  CompiledNode& c = g.nodes()[conv];
  const CompiledNode& b = g.nodes()[bn];
  if (c.inputs.size() < 2 || b.inputs.size() != 5 || b.inputs[0] != c.outputs[0]) return false;
  for (size_t o = 1; o < b.outputs.size(); ++o) {
    if (b.outputs[o] >= 0) return false;
  }
  // In training mode the statistics come from the batch, not from the constant inputs.
  if (b.info->opset() >= 14 && b.info->get_int("training_mode", 0) != 0) return false;
  const TensorRef* w = g.constant(c.inputs[1]);
  if (!w || w->dtype != DType::F32 || w->shape.rank < 3 || w->shape[0] <= 0) return false;
  const int64_t channels = w->shape[0], per_channel_count = w->shape.count(1, w->shape.rank);
  const bool has_bias = c.inputs.size() > 2 && c.inputs[2] >= 0;
  const float* bias = has_bias ? per_channel(g, c.inputs[2], channels) : nullptr;
  const float* scale = per_channel(g, b.inputs[1], channels);
  const float* beta = per_channel(g, b.inputs[2], channels);
  const float* mean = per_channel(g, b.inputs[3], channels);
  const float* var = per_channel(g, b.inputs[4], channels);
  if ((has_bias && !bias) || !scale || !beta || !mean || !var) return false;
  const double epsilon = b.info->get_float("epsilon", 1e-5f);

  ConstTensor new_w = ConstTensor::allocate(DType::F32, w->shape);
  ConstTensor new_b = ConstTensor::allocate(DType::F32, Shape{channels});
  const float* src = w->as<const float>();
  float* dst_w = new_w.ref.as<float>();
  float* dst_b = new_b.ref.as<float>();
  for (int64_t m = 0; m < channels; ++m) {
    const double s = static_cast<double>(scale[m]) / std::sqrt(static_cast<double>(var[m]) + epsilon);
    for (int64_t i = 0; i < per_channel_count; ++i) {
      const int64_t at = m * per_channel_count + i;
      dst_w[at] = static_cast<float>(static_cast<double>(src[at]) * s);
    }
    const double b0 = bias ? static_cast<double>(bias[m]) : 0.0;
    dst_b[m] = static_cast<float>((b0 - static_cast<double>(mean[m])) * s + static_cast<double>(beta[m]));
  }
  // A copy: add_constant grows the value list, which would leave a reference dangling.
  const std::string base = g.values()[static_cast<size_t>(b.outputs[0])].name;
  const int32_t w_id = g.add_constant(base + "/folded_W", std::move(new_w));
  const int32_t b_id = g.add_constant(base + "/folded_B", std::move(new_b));
  c.inputs = {c.inputs[0], w_id, b_id};
  c.outputs = {b.outputs[0]};
  g.nodes().erase(g.nodes().begin() + static_cast<std::ptrdiff_t>(bn));
  return true;
}

}  // namespace

void conv_batchnorm_fold(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const CompiledNode& c = g.nodes()[n];
    if (!is_onnx_op(c, "Conv") || c.outputs.size() != 1) continue;
    const int32_t reader = g.only_reader(c.outputs[0]);
    if (reader < 0 || !is_onnx_op(g.nodes()[static_cast<size_t>(reader)], "BatchNormalization")) continue;
    fold(g, n, static_cast<size_t>(reader));
  }
}

}  // namespace onemodel::passes

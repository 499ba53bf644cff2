// conv-batchnorm-fold (fast mode only): a Conv whose only reader is a BatchNormalization with constant
// statistics becomes one Conv with W' = W * s per output channel and b' = (b - mean) * s + beta, where
// s = scale / sqrt(var + epsilon). Everything is computed in double and rounded to float once. The scale now
// applies to each product before the sum instead of to the sum, so the last bits differ from the unfused
// graph.
#include <cmath>

#include "graph/passes/conv_fold.h"

namespace onemodel::passes {

bool conv_weights(const PassGraph& g, const CompiledNode& conv, ConvWeights& out) {
  if (conv.inputs.size() < 2) return false;
  const TensorRef* w = g.constant(conv.inputs[1]);
  if (!w || w->dtype != DType::F32 || w->shape.rank < 3 || w->shape[0] <= 0) return false;
  out.w = w;
  out.channels = w->shape[0];
  out.bias = nullptr;
  if (conv.inputs.size() > 2 && conv.inputs[2] >= 0) {
    out.bias = per_channel(g, conv.inputs[2], out.channels);
    if (!out.bias) return false;
  }
  return true;
}

const float* per_channel(const PassGraph& g, int32_t v, int64_t count) {
  const TensorRef* t = g.constant(v);
  if (!t || t->dtype != DType::F32 || t->shape.rank != 1 || t->shape[0] != count) return nullptr;
  return t->as<const float>();
}

void rewrite_conv_weights(PassGraph& g, CompiledNode& conv, const ConvWeights& weights,
                          const std::vector<double>& scale, const std::vector<double>& bias, int32_t output,
                          std::string base) {
  const int64_t per_channel_count = weights.w->shape.count(1, weights.w->shape.rank);
  ConstTensor new_w = ConstTensor::allocate(DType::F32, weights.w->shape);
  ConstTensor new_b = ConstTensor::allocate(DType::F32, Shape{weights.channels});
  const float* src = weights.w->as<const float>();
  float* dst_w = new_w.ref.as<float>();
  float* dst_b = new_b.ref.as<float>();
  for (int64_t m = 0; m < weights.channels; ++m) {
    const double s = scale[static_cast<size_t>(m)];
    for (int64_t i = 0; i < per_channel_count; ++i) {
      const int64_t at = m * per_channel_count + i;
      dst_w[at] = static_cast<float>(static_cast<double>(src[at]) * s);
    }
    dst_b[m] = static_cast<float>(bias[static_cast<size_t>(m)]);
  }
  // add_constant grows the value list, which may move the weights `weights` points at: they are read above.
  const int32_t w_id = g.add_constant(base + "/folded_W", std::move(new_w));
  const int32_t b_id = g.add_constant(base + "/folded_B", std::move(new_b));
  conv.inputs = {conv.inputs[0], w_id, b_id};
  conv.outputs = {output};
}

namespace {

// Folds node `conv` into the BatchNormalization at `bn` when both qualify; returns whether it did.
bool fold(PassGraph& g, size_t conv, size_t bn) {
  CompiledNode& c = g.nodes()[conv];
  const CompiledNode& b = g.nodes()[bn];
  if (b.inputs.size() != 5 || b.inputs[0] != c.outputs[0]) return false;
  for (size_t o = 1; o < b.outputs.size(); ++o) {
    if (b.outputs[o] >= 0) return false;
  }
  // In training mode the statistics come from the batch, not from the constant inputs.
  if (b.info->opset() >= 14 && b.info->get_int("training_mode", 0) != 0) return false;
  ConvWeights weights;
  if (!conv_weights(g, c, weights)) return false;
  const int64_t channels = weights.channels;
  const float* scale = per_channel(g, b.inputs[1], channels);
  const float* beta = per_channel(g, b.inputs[2], channels);
  const float* mean = per_channel(g, b.inputs[3], channels);
  const float* var = per_channel(g, b.inputs[4], channels);
  if (!scale || !beta || !mean || !var) return false;
  const double epsilon = b.info->get_float("epsilon", 1e-5f);

  std::vector<double> s(static_cast<size_t>(channels)), bias(static_cast<size_t>(channels));
  for (int64_t m = 0; m < channels; ++m) {
    const auto at = static_cast<size_t>(m);
    s[at] = static_cast<double>(scale[m]) / std::sqrt(static_cast<double>(var[m]) + epsilon);
    const double b0 = weights.bias ? static_cast<double>(weights.bias[m]) : 0.0;
    bias[at] = (b0 - static_cast<double>(mean[m])) * s[at] + static_cast<double>(beta[m]);
  }
  const int32_t output = b.outputs[0];
  rewrite_conv_weights(g, c, weights, s, bias, output, g.values()[static_cast<size_t>(output)].name);
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

// conv-affine-fold (fast mode only): a Conv followed by a run of Mul and Add nodes with constant operands
// that are one value, or one value per output channel, becomes one Conv: the run is y = conv * s + t per
// channel (s and t composed in double), so W' = W * s and b' = b * s + t, each rounded to float once.
// PaddleOCR's "learnable affine" blocks (det writes a scalar Mul -> Add after nearly every convolution) are
// the case in mind. As with conv-batchnorm-fold, the scale now multiplies each product instead of the sum,
// hence the different last bits.
#include <cmath>

#include "graph/passes/conv_fold.h"

namespace onemodel::passes {
namespace {

// The per-channel values of constant v as an operand of a Conv's output of rank `rank` with `channels`
// channels: one float32 value, or `channels` values along the channel axis with every other extent 1. Its
// rank may not exceed the output's, so the operation keeps the output's shape. Empty when v is not such a
// constant.
std::vector<double> channel_values(const PassGraph& g, int32_t v, int32_t rank, int64_t channels) {
  const TensorRef* t = g.constant(v);
  if (!t || t->dtype != DType::F32 || t->shape.rank > rank) return {};
  const float* data = t->as<const float>();
  if (t->count() == 1)
    return std::vector<double>(static_cast<size_t>(channels), static_cast<double>(data[0]));
  const int32_t channel_axis = t->shape.rank + 1 - rank;  // the constant's axis under the output's axis 1
  if (channel_axis < 0 || t->shape[channel_axis] != channels || t->count() != channels) return {};
  std::vector<double> out(static_cast<size_t>(channels));
  for (int64_t m = 0; m < channels; ++m) out[static_cast<size_t>(m)] = static_cast<double>(data[m]);
  return out;
}

// Folds the Mul and Add nodes that follow Conv node `n`, one after the other, into it.
void fold_after(PassGraph& g, size_t n) {
  ConvWeights weights;
  if (!conv_weights(g, g.nodes()[n], weights)) return;
  const auto channels = static_cast<size_t>(weights.channels);
  const int32_t rank = weights.w->shape.rank;
  std::vector<double> scale(channels, 1.0), shift(channels, 0.0);
  std::vector<size_t> absorbed;
  int32_t output = g.nodes()[n].outputs[0];
  for (;;) {
    const int32_t reader = g.only_reader(output);
    if (reader < 0) break;
    const CompiledNode& op = g.nodes()[static_cast<size_t>(reader)];
    const bool mul = is_onnx_op(op, "Mul");
    if ((!mul && !is_onnx_op(op, "Add")) || op.inputs.size() != 2 || op.outputs.size() != 1) break;
    const int32_t other = op.inputs[0] == output ? op.inputs[1] : op.inputs[0];
    const std::vector<double> values = channel_values(g, other, rank, weights.channels);
    if (values.empty()) break;
    for (size_t m = 0; m < channels; ++m) {
      if (mul) {
        scale[m] *= values[m];
        shift[m] *= values[m];
      } else {
        shift[m] += values[m];
      }
    }
    absorbed.push_back(static_cast<size_t>(reader));
    output = op.outputs[0];
  }
  if (absorbed.empty()) return;
  std::vector<double> bias(channels);
  for (size_t m = 0; m < channels; ++m) {
    // Infinite or NaN factors would turn the weights' zeros and the padding into NaN where the graph has
    // none.
    if (!std::isfinite(scale[m]) || !std::isfinite(shift[m])) return;
    const double b0 = weights.bias ? static_cast<double>(weights.bias[m]) : 0.0;
    bias[m] = b0 * scale[m] + shift[m];
  }
  rewrite_conv_weights(g, g.nodes()[n], weights, scale, bias, output,
                       g.values()[static_cast<size_t>(output)].name);
  // The absorbed nodes follow the Conv in the order they were found: erase from the last.
  for (size_t i = absorbed.size(); i-- > 0;)
    g.nodes().erase(g.nodes().begin() + static_cast<std::ptrdiff_t>(absorbed[i]));
}

}  // namespace

void conv_affine_fold(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    const CompiledNode& c = g.nodes()[n];
    if (is_onnx_op(c, "Conv") && c.outputs.size() == 1) fold_after(g, n);
  }
}

}  // namespace onemodel::passes

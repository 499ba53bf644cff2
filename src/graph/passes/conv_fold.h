// Shared by the fast-mode folds of per-channel arithmetic into a Conv (conv-batchnorm-fold,
// conv-affine-fold): reading the Conv's constant weights and rewriting them.
#pragma once

#include <string>
#include <vector>

#include "graph/passes/graph_pass.h"

namespace onemodel::passes {

// The constant float32 weights (rank 3 or more, at least one output channel) and optional per-channel bias
// of a Conv node.
struct ConvWeights {
  const TensorRef* w = nullptr;
  const float* bias = nullptr;  // null without a bias input
  int64_t channels = 0;
};

// Fills `out` and returns true when the Conv's weights and bias are such constants.
bool conv_weights(const PassGraph& g, const CompiledNode& conv, ConvWeights& out);

// The float32 constant v of rank 1 holding `count` values, or null.
const float* per_channel(const PassGraph& g, int32_t v, int64_t count);

// Gives the Conv new constants W'[m] = W[m] * scale[m] and B'[m] = bias[m], each computed by the caller in
// double and rounded to float once here, and makes it write `output` (the value of the node it absorbs).
// `base` names the new constants (a copy: the value table grows).
void rewrite_conv_weights(PassGraph& g, CompiledNode& conv, const ConvWeights& weights,
                          const std::vector<double>& scale, const std::vector<double>& bias, int32_t output,
                          std::string base);

}  // namespace onemodel::passes

// Activations a fused product runs in its epilogue (conv-activation and linear-pack-fuse): which nodes
// qualify, and the epilogue that runs such a node's own kernel on finished outputs.
#pragma once

#include <memory>

#include "graph/ops/fused_epilogue.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {

// Relu, Clip with absent or single-element float32 constant bounds, HardSigmoid, HardSwish, LeakyRelu,
// Sigmoid, Tanh and Gelu (an opset-20 node or one the gelu pass made): each computes every element on its
// own, so running it on pieces of a tensor gives the bits of one run over the whole.
bool is_epilogue_activation(const PassGraph& g, const CompiledNode& n);

// Moves the activation node's kernel and NodeInfo into an epilogue. The activation's extra inputs (Clip's
// bounds) must follow the fused node's own inputs, from index `first_extra` on.
std::unique_ptr<const ops::FusedEpilogue> take_activation(CompiledNode& activation, size_t first_extra);

}  // namespace onemodel::passes

// The ai.onnx.preview.training Gradient operator, served by rewriting the imported graph before it compiles:
// each Gradient node becomes the reverse-mode derivative of its forward subgraph, built from standard
// operators.
#pragma once

#include <memory>

#include "ir/ir.h"

namespace onemodel {

// `model` itself when its main graph has no Gradient node; otherwise a copy (sharing the tensor bytes) whose
// Gradient nodes are replaced by the operators that compute their outputs. Throws SessionError: InvalidModel
// for a malformed Gradient, Unsupported when an operator on the differentiated path has no derivative here.
std::shared_ptr<const ir::Model> expand_gradients(std::shared_ptr<const ir::Model> model);

}  // namespace onemodel

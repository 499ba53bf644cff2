// Half-precision storage (fp16.md): the widening adapter around kernels that compute in binary32, and the
// compact weights of SessionOptions::weight_storage.
#pragma once

#include <vector>

#include "graph/compiled_graph.h"

namespace onemodel {

// Whether the model stores or produces binary16 or bfloat16 anywhere: declared value types, initializers,
// constant attributes, or an operator asked to produce one (Cast's `to`, a `dtype` attribute); subgraphs
// included.
bool model_uses_half(const ir::Model& model);

// Gives every node that can be wrapped the widening adapter: half inputs are widened to binary32, the
// kernel runs on binary32, its binary32 outputs are rounded to the storage type. Nodes that are never wrapped
// (Cast, CastLike, Constant, ConstantOfShape, Shape, Size, views, data-dependent kernels, nodes holding
// subgraphs) see the real element types. A node reading a compact weight is wrapped whatever `half_model`.
//
// `keep_binary32` (fast mode): a wrapped node's outputs stay binary32 instead of being rounded, except the
// values whose element type is observable: graph outputs, and what a never-wrapped node other than a Cast,
// Shape or Size reads (through views). Explicit Casts to half still round. See docs/architecture.md,
// "Half precision in fast mode".
void wrap_half_nodes(std::vector<CompiledNode>& nodes, const std::vector<CompiledValue>& values,
                     bool half_model, bool keep_binary32);

// Rounds input 1 of MatMul, Gemm and Conv to the storage format when it is a float32 initializer of at least
// 1024 values that no other node reads nor the graph outputs (Binary16: and every value finite within
// +-65504); marks those values compact.
void compact_weights(const std::vector<CompiledNode>& nodes, std::vector<CompiledValue>& values,
                     WeightStorage storage);

}  // namespace onemodel

// A model with its operators resolved and weights owned; independent of input shapes (graph-runtime.md §1).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.h"
#include "graph/op.h"
#include "ir/ir.h"
#include "onemodel/session.h"

namespace onemodel {

struct CompiledNode {
  const ir::Node* ir = nullptr;
  std::unique_ptr<NodeInfo> info;
  std::unique_ptr<OpKernel> kernel;
  std::vector<int32_t> inputs, outputs;  // value ids of the graph; -1 = omitted
  bool captures = false;                 // its bodies read values of this graph (the inputs after the declared)
};

struct CompiledValue {
  std::string name;
  int32_t elem_type = 0;  // declared ONNX element type, 0 when unknown
  bool is_input = false;  // a graph input the caller feeds
  bool is_output = false;
  std::optional<ConstTensor> constant;  // initializer (aligned copy), when the value has one
  int32_t unstored_type = 0;            // initializer of a type we do not store (string, int4, ...)
  bool compact_weight = false;  // a float32 weight kept rounded to half precision (SessionOptions::weight_storage)
};

class CompiledGraph {
 public:
  // Resolves every operator (reporting all missing ones together), checks the mode, copies the weights, runs
  // the graph passes.
  CompiledGraph(std::shared_ptr<const ir::Model> model, const SessionOptions& options);
  // A subgraph of `model` (graph-runtime.md §8): inputs are its declared inputs, then its captures; no
  // passes.
  CompiledGraph(std::shared_ptr<const ir::Model> model, const ir::Graph& body, const SessionOptions& options);
  ~CompiledGraph();
  CompiledGraph(const CompiledGraph&) = delete;
  CompiledGraph& operator=(const CompiledGraph&) = delete;

  const std::vector<CompiledNode>& nodes() const { return nodes_; }
  const std::vector<CompiledValue>& values() const { return values_; }
  const std::vector<int32_t>& input_ids() const { return input_ids_; }
  const std::vector<int32_t>& output_ids() const { return output_ids_; }
  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  // Bytes of the initializers as kept once the weights are compacted, before the graph passes.
  size_t weight_bytes() const { return weight_bytes_; }

 private:
  class BodyCompiler;
  void compile(const ir::Graph& g, const SessionOptions& options, bool is_body);

  std::shared_ptr<const ir::Model> model_;
  std::unique_ptr<BodyCompiler> compiler_;
  std::vector<CompiledNode> nodes_;
  std::vector<CompiledValue> values_;
  std::vector<int32_t> input_ids_, output_ids_;
  std::vector<TensorInfo> inputs_, outputs_;
  size_t weight_bytes_ = 0;
};

// "Type (opset N)" as the error lists name operators.
std::string operator_label(const ir::Node& node);
// The values of the node's graph that its subgraphs read (captures, nested ones included), in first-use
// order; the compiled node reads them after its declared inputs (graph-runtime.md §8).
std::vector<int32_t> subgraph_reads(const ir::Node& node);

}  // namespace onemodel

// Graph passes (graph-passes.md, graph-runtime.md §6): rewrites of the compiled, shape-free graph that run
// once per session, after the operators are resolved and before any plan is made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "graph/compiled_graph.h"

namespace onemodel::passes {

// The mutable graph a pass edits: nodes in dependency order and the value table of the compiled graph.
class PassGraph {
 public:
  PassGraph(std::vector<CompiledNode>& nodes, std::vector<CompiledValue>& values)
      : nodes_(nodes), values_(values) {}

  std::vector<CompiledNode>& nodes() { return nodes_; }
  const std::vector<CompiledNode>& nodes() const { return nodes_; }
  std::vector<CompiledValue>& values() { return values_; }
  const std::vector<CompiledValue>& values() const { return values_; }
  // A new constant value (the graph owns it); returns its id.
  int32_t add_constant(std::string name, ConstTensor value);
  // The constant behind value id v (an omitted input, -1, has none).
  const TensorRef* constant(int32_t v) const;
  // The nodes that read each value; graph outputs are readers too, so they are never single-consumer.
  std::vector<int32_t> reader_counts() const;
  // The index of the only node that reads value v, or -1.
  int32_t only_reader(int32_t v) const;
  // Value id -> index of the node among the first `node_count` that computes it, or -1.
  std::vector<int32_t> producers(size_t node_count = SIZE_MAX) const;
  // Drops nodes that feed nothing, and the constants nothing reads any more.
  void remove_dead();

  bool exact = false;  // the session's mode, for kernels asked at pass time

 private:
  std::vector<CompiledNode>& nodes_;
  std::vector<CompiledValue>& values_;
};

// True when n is the standard-domain operator `type` (the passes never match other domains' namesakes).
// The opset 1-6 forms whose operand layout differs from the modern one (legacy_form) never match: the
// passes are written against the modern semantics.
bool is_onnx_op(const CompiledNode& n, std::string_view type);
// True for the opset 1-6 Add, Sub, Mul, Div, Pow, the comparisons and logic operators, PRelu and Gemm, whose
// second operand or C is laid out by broadcast and axis attributes
// (src/graph/ops/elementwise/legacy_broadcast.h).
bool legacy_form(const CompiledNode& n);

struct GraphPass {
  std::string_view name;
  OptimizationLevel min_level;
  bool preserves_bits;
  void (*run)(PassGraph& graph);
};

// Every pass, in the order they run.
std::span<const GraphPass> all_passes();
// The passes a session with these options runs: level at least the pass's, and in exact mode only those that
// preserve bits.
std::vector<const GraphPass*> selected_passes(const SessionOptions& options);
// Runs the selected passes in order, removing dead nodes after each.
void run_passes(PassGraph& graph, const SessionOptions& options);

// The passes themselves (one per file).
void qdq(PassGraph& graph);
void qdq_lookup(PassGraph& graph);
void matmul_integer_fusion(PassGraph& graph);
void constant_fold(PassGraph& graph);
void conv_batchnorm_fold(PassGraph& graph);
void conv_affine_fold(PassGraph& graph);
void gelu(PassGraph& graph);
void attention(PassGraph& graph);
void linear_pack_fuse(PassGraph& graph);
void conv_activation(PassGraph& graph);
void elementwise_chain(PassGraph& graph);

}  // namespace onemodel::passes

// A compiled body of If, Loop, Scan or SequenceMap, with its own plan cache (graph-runtime.md §8). Immutable
// apart from the cache, which is guarded, so one body serves concurrent runs of its node.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "graph/compiled_graph.h"
#include "graph/op.h"
#include "graph/plan.h"

namespace onemodel::ops {

class Subgraph {
 public:
  // Compiles `body`, a graph attribute of the node.
  Subgraph(const NodeInfo& node, const ir::Graph& body);

  size_t num_inputs() const { return declared_inputs_; }  // without the captures
  size_t num_outputs() const { return graph_->output_ids().size(); }
  // The declared element type of output i (ONNX code), 0 when the body does not say.
  int32_t output_elem_type(size_t i) const;

  // One finished run of the body; outputs stay valid until it is destroyed.
  class Results {
   public:
    Results(std::shared_ptr<ExecutionPlan> plan, RunState* state) : plan_(std::move(plan)), state_(state) {}
    Results(Results&& other) noexcept : plan_(std::move(other.plan_)), state_(other.state_) {
      other.state_ = nullptr;
    }
    Results& operator=(Results&&) = delete;
    ~Results() {
      if (state_) plan_->release(state_);
    }
    const TensorRef& output(size_t i) const { return plan_->output(*state_, i); }

   private:
    std::shared_ptr<ExecutionPlan> plan_;
    RunState* state_;
  };

  // Runs the body on `inputs` (its declared inputs; an absent one has data == nullptr) with the captured
  // values taken from the node's run: they follow the node's declared inputs there.
  Results run(std::span<const TensorRef> inputs, const OpRun& node_run) const;

  // While the node is shaped: the body's plan for these declared inputs (types and shapes; data unused) and
  // the captured values' types and shapes, or nullptr when no plan can be made here (graph passes).
  std::shared_ptr<ExecutionPlan> plan(std::span<const TensorRef> inputs, const InferContext& ctx) const;

 private:
  // `bound`: per fed input, the enclosing plan's constant behind it or nullptr (ExecutionPlan's `bound`).
  std::shared_ptr<ExecutionPlan> plan_for(std::span<const TensorRef> inputs,
                                          std::span<const ConstTensor* const> bound,
                                          const KernelTable& kernels, bool exact,
                                          ThreadContext threads) const;

  std::shared_ptr<const CompiledGraph> graph_;
  size_t declared_inputs_ = 0;
  std::vector<size_t> capture_slots_;  // per capture of the body: its position among the node's inputs
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<ExecutionPlan>> plans_;  // oldest first
};

// The graph attribute `name` of the node; fails naming the node when it is absent.
const ir::Graph& graph_attribute(const NodeInfo& node, std::string_view name);

}  // namespace onemodel::ops

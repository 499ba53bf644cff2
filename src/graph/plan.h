// ExecutionPlan: everything fixed by one list of input element types and shapes (graph-runtime.md §3, §5).
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "core/arena.h"
#include "graph/compiled_graph.h"

namespace onemodel {

struct PlanValue {
  enum class Kind { Absent, Input, Constant, Static, Dynamic };
  Kind kind = Kind::Absent;
  DType dtype = DType::F32;
  Shape shape;
  TensorRef constant;                  // Kind::Constant
  const ConstTensor* owner = nullptr;  // Kind::Constant: holds its bytes (a view's: its source's)
  int64_t offset = -1;                 // Kind::Static and not a view: byte offset in the slab
  int32_t input_index = -1;            // Kind::Input: position among the graph's fed inputs
};

struct PlanStep {
  enum class Kind { Run, View, Dynamic };
  Kind kind = Kind::Run;
  int32_t node = 0;  // index into CompiledGraph::nodes()
  std::shared_ptr<const void> state;
  std::vector<std::pair<DType, Shape>>
      omitted_outputs;                        // Kind::Run: outputs the graph does not name, by position
  std::vector<const ConstTensor*> constants;  // nodes that hold bodies: OpRun::constants
};

class RunState;

class ExecutionPlan {
 public:
  // `inputs` carry the dtype and shape of each fed input in CompiledGraph::input_ids() order (data unused).
  // `bound` (empty, or one per input) names inputs that are constants of an enclosing plan: a body's captured
  // weights. The plan treats them as constants (folding, packed weights) and holds their bytes; it then
  // serves only runs fed those same constants.
  ExecutionPlan(std::shared_ptr<const CompiledGraph> graph, std::span<const TensorRef> inputs,
                const KernelTable& kernels, bool exact, ThreadContext threads,
                std::span<const ConstTensor* const> bound = {});
  ~ExecutionPlan();

  bool matches(std::span<const TensorRef> inputs, std::span<const ConstTensor* const> bound = {}) const;
  // Runs with the given input tensors (same order as in the constructor). Returns the state holding the
  // results; give it back with release() once the outputs are copied out.
  RunState* run(std::span<const TensorRef> inputs);
  void release(RunState* state);
  // The outputs of a finished run, in CompiledGraph::output_ids() order.
  const TensorRef& output(const RunState& state, size_t i) const;
  size_t slab_bytes() const { return slab_bytes_; }
  // Whether the plan fixes the type and shape of output i (false: a dynamic step computes it); sets them if
  // so.
  bool fixed_output(size_t i, DType& dtype, Shape& shape) const;

 private:
  void plan_nodes(std::span<const TensorRef> inputs, std::span<const ConstTensor* const> bound);
  void evaluate_constant(size_t node_index, std::vector<PlanValue>& outs);
  void place_in_slab();
  std::unique_ptr<RunState> make_state() const;

  std::shared_ptr<const CompiledGraph> graph_;
  const KernelTable& kernels_;
  bool exact_;
  ThreadContext threads_;
  std::vector<std::pair<DType, Shape>> key_;
  std::vector<const std::byte*> bound_key_;  // per input: the bound constant's bytes, or nullptr
  std::vector<PlanValue> values_;
  std::vector<PlanStep> steps_;
  std::deque<ConstTensor> owned_;  // constants this plan computed or holds (stable: PlanValue::owner)
  size_t slab_bytes_ = 0;
  size_t max_arity_ = 0;

  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<RunState>> idle_;
};

}  // namespace onemodel

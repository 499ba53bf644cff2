// Loop (opsets 1-latest): runs the body while the trip count and the condition allow, carrying values from
// one iteration to the next and stacking the scan outputs on a new first axis (graph-runtime.md §8).
#include <cstring>

#include "graph/ops/control/factories.h"
#include "graph/ops/control/subgraph.h"
#include "graph/ops/control/value_buffer.h"

namespace onemodel::ops {
namespace {

class Loop final : public OpKernel {
 public:
  explicit Loop(const NodeInfo& node) : body_(node, graph_attribute(node, "body")) {
    if (node.num_inputs() < 2) node.fail("needs the trip count and condition inputs (either may be empty)");
    carried_ = node.num_inputs() - 2;
    if (body_.num_inputs() != carried_ + 2)
      node.fail("its body must take " + std::to_string(carried_ + 2) +
                " inputs (iteration, condition, carried)");
    if (body_.num_outputs() < carried_ + 1 || node.num_outputs() != body_.num_outputs() - 1)
      node.fail("its body must return the condition, the carried values and the node's scan outputs");
    supports_exact = true;
    outputs_data_dependent = true;
  }

  void infer(InferContext&) const override {}  // outputs are shaped when the loop has finished

  void run(const OpRun& run) const override {
    const std::string node = run.node->display_name();
    int64_t trip_count = -1;  // -1: no limit
    if (run.has_input(0)) trip_count = scalar_input<int64_t>(run.inputs[0], DType::I64, "trip count", node);
    bool cond = true;
    if (run.has_input(1)) cond = scalar_input<uint8_t>(run.inputs[1], DType::Bool, "condition", node) != 0;
    if (!run.has_input(0) && !run.has_input(1))
      throw SessionError(SessionError::Kind::Unsupported,
                         "a Loop without trip count and condition never ends", node);

    std::vector<ValueBuffer> carried(carried_), next(carried_);
    for (size_t j = 0; j < carried_; ++j) carried[j].assign(run.inputs[2 + j]);
    const size_t scans = body_.num_outputs() - 1 - carried_;
    std::vector<ValueBuffer> scan(scans);

    int64_t iterations = 0;
    int64_t iteration_value = 0;
    uint8_t cond_value = 1;
    std::vector<TensorRef> in(2 + carried_);
    in[0] = TensorRef{DType::I64, Shape{}, reinterpret_cast<std::byte*>(&iteration_value)};
    in[1] = TensorRef{DType::Bool, Shape{}, reinterpret_cast<std::byte*>(&cond_value)};
    while (cond && (trip_count < 0 || iterations < trip_count)) {
      iteration_value = iterations;
      cond_value = cond ? 1 : 0;
      for (size_t j = 0; j < carried_; ++j) in[2 + j] = carried[j].ref();
      Subgraph::Results results = body_.run(in, run);
      cond = scalar_input<uint8_t>(results.output(0), DType::Bool, "condition the body returned", node) != 0;
      // Outputs may be views of this iteration's inputs, so the carried values go to the other buffers.
      for (size_t j = 0; j < carried_; ++j) next[j].assign(results.output(1 + j));
      for (size_t k = 0; k < scans; ++k) scan[k].append_slice(results.output(1 + carried_ + k), node);
      carried.swap(next);
      ++iterations;
    }
    for (size_t j = 0; j < carried_; ++j) copy_to_output(run, j, carried[j].ref());
    for (size_t k = 0; k < scans; ++k) {
      int32_t declared = body_.output_elem_type(1 + carried_ + k);
      copy_to_output(run, carried_ + k, scan[k].stacked(iterations, declared));
    }
  }

 private:
  Subgraph body_;
  size_t carried_ = 0;
};

}  // namespace

std::unique_ptr<OpKernel> make_loop(const NodeInfo& node) {
  return std::make_unique<Loop>(node);
}

}  // namespace onemodel::ops

// If (opsets 1-latest): runs the branch the condition picks and copies its outputs out (graph-runtime.md §8).
#include "graph/ops/control/factories.h"
#include "graph/ops/control/subgraph.h"

namespace onemodel::ops {
namespace {

class If final : public OpKernel {
 public:
  explicit If(const NodeInfo& node)
      : then_(node, graph_attribute(node, "then_branch")), else_(node, graph_attribute(node, "else_branch")) {
    if (then_.num_inputs() != 0 || else_.num_inputs() != 0) node.fail("a branch of If cannot have inputs");
    if (then_.num_outputs() != node.num_outputs() || else_.num_outputs() != node.num_outputs()) {
      node.fail("its branches must have " + std::to_string(node.num_outputs()) + " outputs like the node");
    }
    supports_exact = true;
    outputs_data_dependent = true;
  }

  void infer(InferContext&) const override {}  // outputs are shaped when the branch has run

  void run(const OpRun& run) const override {
    const TensorRef& cond = run.inputs[0];
    if (cond.dtype != DType::Bool || cond.count() != 1)
      throw SessionError(SessionError::Kind::InvalidInput,
                         "the condition must be one bool, got " + std::string(dtype_name(cond.dtype)) + " " +
                             cond.shape.str(),
                         run.node->display_name());
    const Subgraph& branch = *cond.as<uint8_t>() ? then_ : else_;
    Subgraph::Results results = branch.run({}, run);
    for (size_t i = 0; i < run.outputs.size(); ++i) copy_to_output(run, i, results.output(i));
  }

 private:
  Subgraph then_, else_;
};

}  // namespace

std::unique_ptr<OpKernel> make_if(const NodeInfo& node) {
  return std::make_unique<If>(node);
}

}  // namespace onemodel::ops

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
  }

  // With the condition known (a plan-time constant, or the real value in a run) and the branch's plan fixing
  // every output, the node is shaped like any other, so what follows it can be planned and prepared;
  // otherwise its outputs are allocated as the branch finishes. So are string outputs, whose text the
  // branch's run holds and copy_to_output copies into this run.
  void infer(InferContext& ctx) const override {
    const TensorRef* cond = ctx.input_value(0);
    if (cond == nullptr) return ctx.require_run_time_values();
    check_condition(*cond, ctx.node().display_name());
    const Subgraph& branch = *cond->as<uint8_t>() ? then_ : else_;
    std::shared_ptr<ExecutionPlan> plan = branch.plan({}, ctx);
    if (plan == nullptr) return ctx.require_run_time_values();
    std::vector<std::pair<DType, Shape>> outputs(ctx.num_outputs());
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!plan->fixed_output(i, outputs[i].first, outputs[i].second) || outputs[i].first == DType::String)
        return ctx.outputs_known_after_run();
    }
    for (size_t i = 0; i < outputs.size(); ++i) ctx.set_output(i, outputs[i].first, outputs[i].second);
  }

  void run(const OpRun& run) const override {
    const TensorRef& cond = run.inputs[0];
    check_condition(cond, run.node->display_name());
    const Subgraph& branch = *cond.as<uint8_t>() ? then_ : else_;
    Subgraph::Results results = branch.run({}, run);
    for (size_t i = 0; i < run.outputs.size(); ++i) copy_to_output(run, i, results.output(i));
  }

 private:
  static void check_condition(const TensorRef& cond, const std::string& node) {
    if (cond.dtype != DType::Bool || cond.count() != 1) {
      throw SessionError(SessionError::Kind::InvalidInput,
                         "the condition must be one bool, got " + std::string(dtype_name(cond.dtype)) + " " +
                             cond.shape.str(),
                         node);
    }
  }

  Subgraph then_, else_;
};

}  // namespace

std::unique_ptr<OpKernel> make_if(const NodeInfo& node) {
  return std::make_unique<If>(node);
}

}  // namespace onemodel::ops

#include "graph/ops/control/subgraph.h"

#include <algorithm>
#include <cstring>

namespace onemodel::ops {
namespace {

constexpr size_t kMaxBodyPlans = 16;

}  // namespace

const ir::Graph& graph_attribute(const NodeInfo& node, std::string_view name) {
  const ir::Attribute* a = node.find(name);
  if (!a || a->type != ir::AttrType::Graph || !a->g)
    node.fail("needs the graph attribute '" + std::string(name) + "'");
  return *a->g;
}

Subgraph::Subgraph(const NodeInfo& node, const ir::Graph& body)
    : graph_(node.compile_subgraph(body)), declared_inputs_(body.inputs.size()) {
  if (graph_->input_ids().size() != body.inputs.size() + body.captures.size())
    node.unsupported("a body input with a default value (initializer) is not supported");
  const std::vector<int32_t> reads = subgraph_reads(node.node());
  for (int32_t c : body.captures) {
    const int32_t outer = body.values[static_cast<size_t>(c)].outer;
    auto it = std::find(reads.begin(), reads.end(), outer);
    if (outer < 0 || it == reads.end())
      node.fail("its body reads '" + body.values[static_cast<size_t>(c)].name +
                "', which no enclosing graph defines");
    capture_slots_.push_back(node.num_inputs() + static_cast<size_t>(it - reads.begin()));
  }
}

int32_t Subgraph::output_elem_type(size_t i) const {
  return graph_->values()[static_cast<size_t>(graph_->output_ids()[i])].elem_type;
}

std::shared_ptr<ExecutionPlan> Subgraph::plan_for(std::span<const TensorRef> inputs,
                                                  std::span<const ConstTensor* const> bound,
                                                  const KernelTable& kernels, bool exact,
                                                  ThreadContext threads) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& p : plans_) {
      if (p->matches(inputs, bound)) return p;
    }
  }
  auto plan = std::make_shared<ExecutionPlan>(graph_, inputs, kernels, exact, threads, bound);
  std::lock_guard<std::mutex> lock(mutex_);
  if (plans_.size() >= kMaxBodyPlans) plans_.erase(plans_.begin());
  plans_.push_back(plan);
  return plan;
}

// Captured values that are constants of the enclosing plan (weights, shapes) are bound into the body's plan,
// so the body folds them and packs its weights once instead of in every run.
std::shared_ptr<ExecutionPlan> Subgraph::plan(std::span<const TensorRef> inputs,
                                              const InferContext& ctx) const {
  if (ctx.kernels() == nullptr) return nullptr;
  std::vector<TensorRef> fed(inputs.begin(), inputs.end());
  std::vector<const ConstTensor*> bound(inputs.size(), nullptr);
  for (size_t slot : capture_slots_) {
    fed.push_back(TensorRef{ctx.input_dtype(slot), ctx.input_shape(slot), nullptr});
    bound.push_back(ctx.input_constant(slot));
  }
  return plan_for(fed, bound, *ctx.kernels(), ctx.exact(), ctx.threads());
}

Subgraph::Results Subgraph::run(std::span<const TensorRef> inputs, const OpRun& node_run) const {
  std::vector<TensorRef> fed(inputs.begin(), inputs.end());
  std::vector<const ConstTensor*> bound(inputs.size(), nullptr);
  for (size_t slot : capture_slots_) {
    fed.push_back(node_run.inputs[slot]);
    bound.push_back(node_run.constants.empty() ? nullptr : node_run.constants[slot]);
  }
  std::shared_ptr<ExecutionPlan> plan =
      plan_for(fed, bound, *node_run.kernels, node_run.exact, node_run.threads);
  RunState* state = plan->run(fed);
  return Results(std::move(plan), state);
}

}  // namespace onemodel::ops

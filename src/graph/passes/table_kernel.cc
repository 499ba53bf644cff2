// Kernels built from the operator table for nodes a pass creates.
#include "graph/passes/table_kernel.h"

#include "graph/forwarding_infer_context.h"

namespace onemodel::passes {
namespace {

// The caller's infer context, except that the node is the described one.
class DescribedInferContext final : public ForwardingInferContext {
 public:
  DescribedInferContext(InferContext& base, const NodeInfo& info)
      : ForwardingInferContext(base), info_(info) {}
  const NodeInfo& node() const override { return info_; }

 private:
  const NodeInfo& info_;
};

class TableKernel final : public OpKernel {
 public:
  TableKernel(std::unique_ptr<ir::Node> node, const ir::Graph& graph, const OpDef& def)
      : node_(std::move(node)), info_(*node_, graph), inner_(def.factory(info_)) {
    supports_exact = inner_->supports_exact;
    in_place_input = inner_->in_place_input;
    view_of_input = inner_->view_of_input;
    outputs_data_dependent = inner_->outputs_data_dependent;
  }

  void infer(InferContext& ctx) const override {
    DescribedInferContext described(ctx, info_);
    inner_->infer(described);
  }
  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override { return inner_->prepare(ctx); }
  void run(const OpRun& run) const override {
    OpRun described = run;
    described.node = &info_;
    inner_->run(described);
  }

 private:
  std::unique_ptr<ir::Node> node_;
  NodeInfo info_;
  std::unique_ptr<OpKernel> inner_;
};

}  // namespace

std::unique_ptr<OpKernel> make_table_kernel(const NodeInfo& site, TableNode node) {
  const OpDef* def = find_op(node.domain, node.op_type, node.opset);
  if (def == nullptr) return nullptr;
  auto ir_node = std::make_unique<ir::Node>();
  ir_node->name = site.node().name;
  ir_node->op_type = std::move(node.op_type);
  ir_node->domain = std::move(node.domain);
  ir_node->opset = node.opset;
  // The described node is not part of any graph: present inputs get a placeholder id, omitted ones -1.
  for (bool p : node.present) ir_node->inputs.push_back(p ? 0 : -1);
  ir_node->outputs = site.node().outputs;
  ir_node->attributes = std::move(node.attributes);
  ir_node->file_index = site.node().file_index;
  ir_node->field_path = site.node().field_path;
  return std::make_unique<TableKernel>(std::move(ir_node), site.graph(), *def);
}

}  // namespace onemodel::passes

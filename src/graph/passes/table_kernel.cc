// Kernels built from the operator table for nodes a pass creates.
#include "graph/passes/table_kernel.h"

namespace onemodel::passes {
namespace {

// The caller's infer context, except that the node is the described one.
class DescribedInferContext final : public InferContext {
 public:
  DescribedInferContext(InferContext& base, const NodeInfo& info) : base_(base), info_(info) {}
  size_t num_inputs() const override { return base_.num_inputs(); }
  size_t num_outputs() const override { return base_.num_outputs(); }
  bool has_input(size_t i) const override { return base_.has_input(i); }
  DType input_dtype(size_t i) const override { return base_.input_dtype(i); }
  const Shape& input_shape(size_t i) const override { return base_.input_shape(i); }
  const TensorRef* input_value(size_t i) const override { return base_.input_value(i); }
  void set_output(size_t i, DType dtype, const Shape& shape) override { base_.set_output(i, dtype, shape); }
  void set_constant_output(size_t i, ConstTensor value) override {
    base_.set_constant_output(i, std::move(value));
  }
  void require_run_time_values() override { base_.require_run_time_values(); }
  bool exact() const override { return base_.exact(); }
  const NodeInfo& node() const override { return info_; }
  const KernelTable* kernels() const override { return base_.kernels(); }
  ThreadContext threads() const override { return base_.threads(); }
  void outputs_known_after_run() override { base_.outputs_known_after_run(); }

 private:
  InferContext& base_;
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

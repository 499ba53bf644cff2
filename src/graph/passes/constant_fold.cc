// constant-fold (preserves bits): a node whose inputs are all constants becomes constants when its own infer
// states them (Constant, and Shape or Size of a constant) or when it is a view of a constant (Reshape,
// Unsqueeze, ...; the view becomes a copy). Nodes that would need their kernel run are left to the plans'
// constant evaluation, which runs them on the session's kernel path; so are nodes feeding a graph output.
#include <cstring>

#include "graph/passes/graph_pass.h"
#include "graph/string_values.h"

namespace onemodel::passes {
namespace {

// What infer says about a node whose inputs are all known.
class FoldContext final : public InferContext {
 public:
  FoldContext(const CompiledNode& node, std::span<const TensorRef> inputs, bool exact)
      : outputs_(node.outputs.size()),
        constants_(outputs_.size()),
        node_(node),
        inputs_(inputs),
        exact_(exact) {}
  size_t num_inputs() const override { return node_.inputs.size(); }
  size_t num_outputs() const override { return node_.outputs.size(); }
  bool has_input(size_t i) const override { return i < inputs_.size() && inputs_[i].data != nullptr; }
  DType input_dtype(size_t i) const override { return i < inputs_.size() ? inputs_[i].dtype : DType::F32; }
  const Shape& input_shape(size_t i) const override { return i < inputs_.size() ? inputs_[i].shape : empty_; }
  const TensorRef* input_value(size_t i) const override { return has_input(i) ? &inputs_[i] : nullptr; }
  void set_output(size_t i, DType dtype, const Shape& shape) override {
    if (i >= outputs_.size()) fail("kernel stated output " + std::to_string(i) + " the node does not have");
    outputs_[i] = TensorRef{dtype, shape, nullptr};
  }
  void set_constant_output(size_t i, ConstTensor value) override {
    if (i >= outputs_.size()) fail("kernel stated output " + std::to_string(i) + " the node does not have");
    outputs_[i] = value.ref;
    constants_[i] = std::move(value);
  }
  void require_run_time_values() override { needs_values_ = true; }
  bool exact() const override { return exact_; }
  const NodeInfo& node() const override { return *node_.info; }

  bool needs_values_ = false;
  std::vector<TensorRef> outputs_;
  std::vector<ConstTensor> constants_;

 private:
  const CompiledNode& node_;
  std::span<const TensorRef> inputs_;
  bool exact_;
  Shape empty_;
};

// The node's outputs as constants, or an empty vector when it does not fold here.
std::vector<ConstTensor> fold(const PassGraph& g, const CompiledNode& node, bool exact) {
  std::vector<TensorRef> inputs(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] < 0) continue;
    const TensorRef* c = g.constant(node.inputs[i]);
    if (!c) return {};
    inputs[i] = *c;
  }
  if (node.kernel->outputs_data_dependent) return {};
  for (int32_t o : node.outputs) {
    if (o < 0 || g.values()[static_cast<size_t>(o)].is_output) return {};
  }
  FoldContext ctx(node, inputs, exact);
  try {
    node.kernel->infer(ctx);
  } catch (const SessionError&) {
    return {};  // the plan reports it, if the node is ever reached
  }
  if (ctx.needs_values_) return {};
  if (node.kernel->view_of_input && node.outputs.size() == 1 && !inputs.empty() && inputs[0].data) {
    const TensorRef& out = ctx.outputs_[0];
    if (out.bytes() != inputs[0].bytes()) return {};
    if (out.dtype == DType::String) {
      // The source constant may be dropped once nothing reads it: the copy takes the text too.
      ctx.constants_[0] = string_constant(string_views(inputs[0]), out.shape);
    } else {
      ConstTensor copy = ConstTensor::allocate(out.dtype, out.shape);
      if (out.bytes() > 0) std::memcpy(copy.ref.data, inputs[0].data, out.bytes());
      ctx.constants_[0] = std::move(copy);
    }
  }
  for (const ConstTensor& c : ctx.constants_) {
    if (!c.storage) return {};
  }
  return std::move(ctx.constants_);
}

}  // namespace

void constant_fold(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size();) {
    std::vector<ConstTensor> constants = fold(g, g.nodes()[n], g.exact);
    if (constants.empty()) {
      ++n;
      continue;
    }
    const CompiledNode& node = g.nodes()[n];
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      g.values()[static_cast<size_t>(node.outputs[o])].constant = std::move(constants[o]);
    }
    g.nodes().erase(g.nodes().begin() + static_cast<std::ptrdiff_t>(n));
  }
}

}  // namespace onemodel::passes

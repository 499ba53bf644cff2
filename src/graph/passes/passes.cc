// The pass table and the driver (graph-passes.md "Passes, in order").
#include <algorithm>

#include "graph/passes/graph_pass.h"

namespace onemodel::passes {

int32_t PassGraph::add_constant(std::string name, ConstTensor value) {
  CompiledValue v;
  v.name = std::move(name);
  v.elem_type = static_cast<int32_t>(value.ref.dtype);
  v.constant = std::move(value);
  values_.push_back(std::move(v));
  return static_cast<int32_t>(values_.size() - 1);
}

const TensorRef* PassGraph::constant(int32_t v) const {
  if (v < 0) return nullptr;
  const CompiledValue& cv = values_[static_cast<size_t>(v)];
  return cv.constant && !cv.is_input ? &cv.constant->ref : nullptr;
}

std::vector<int32_t> PassGraph::producers(size_t node_count) const {
  std::vector<int32_t> out(values_.size(), -1);
  for (size_t n = 0; n < nodes_.size() && n < node_count; ++n) {
    for (int32_t o : nodes_[n].outputs) {
      if (o >= 0) out[static_cast<size_t>(o)] = static_cast<int32_t>(n);
    }
  }
  return out;
}

bool is_onnx_op(const CompiledNode& n, std::string_view type) {
  return n.ir->op_type == type && (n.ir->domain.empty() || n.ir->domain == "ai.onnx") && !legacy_form(n);
}

bool legacy_form(const CompiledNode& n) {
  constexpr std::string_view kLegacyLayouts[] = {"Add",     "Sub", "Mul", "Div", "Pow",   "Equal", "Less",
                                                 "Greater", "And", "Or",  "Xor", "PRelu", "Gemm"};
  if (n.ir->opset >= 7 || !(n.ir->domain.empty() || n.ir->domain == "ai.onnx")) return false;
  return std::find(std::begin(kLegacyLayouts), std::end(kLegacyLayouts), n.ir->op_type) !=
         std::end(kLegacyLayouts);
}

std::vector<int32_t> PassGraph::reader_counts() const {
  std::vector<int32_t> readers(values_.size(), 0);
  for (const CompiledNode& n : nodes_) {
    for (int32_t i : n.inputs) {
      if (i >= 0) ++readers[static_cast<size_t>(i)];
    }
  }
  for (size_t v = 0; v < values_.size(); ++v) {
    if (values_[v].is_output) ++readers[v];
  }
  return readers;
}

int32_t PassGraph::only_reader(int32_t v) const {
  if (v < 0 || values_[static_cast<size_t>(v)].is_output) return -1;
  int32_t found = -1;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (int32_t i : nodes_[n].inputs) {
      if (i != v) continue;
      if (found >= 0) return -1;
      found = static_cast<int32_t>(n);
    }
  }
  return found;
}

void PassGraph::remove_dead() {
  std::vector<bool> needed(values_.size(), false);
  for (size_t v = 0; v < values_.size(); ++v) needed[v] = values_[v].is_output;
  std::vector<bool> live(nodes_.size(), false);
  for (size_t n = nodes_.size(); n-- > 0;) {
    const CompiledNode& node = nodes_[n];
    live[n] = std::any_of(node.outputs.begin(), node.outputs.end(),
                          [&](int32_t o) { return o >= 0 && needed[static_cast<size_t>(o)]; });
    if (!live[n]) continue;
    for (int32_t i : node.inputs) {
      if (i >= 0) needed[static_cast<size_t>(i)] = true;
    }
  }
  size_t kept = 0;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (!live[n]) continue;
    if (kept != n) nodes_[kept] = std::move(nodes_[n]);
    ++kept;
  }
  nodes_.resize(kept);
  // A weight replaced by a folded copy is released once nothing reads it.
  for (size_t v = 0; v < values_.size(); ++v) {
    if (!needed[v] && !values_[v].is_input) values_[v].constant.reset();
  }
}

namespace {

constexpr GraphPass kPasses[] = {
    {"qdq", OptimizationLevel::All, false, qdq},
    {"qdq-lookup", OptimizationLevel::All, true, qdq_lookup},
    {"matmul-integer-fusion", OptimizationLevel::All, true, matmul_integer_fusion},
    {"constant-fold", OptimizationLevel::Basic, true, constant_fold},
    {"conv-batchnorm-fold", OptimizationLevel::All, false, conv_batchnorm_fold},
    {"conv-affine-fold", OptimizationLevel::All, false, conv_affine_fold},
    {"constant-fold", OptimizationLevel::Basic, true, constant_fold},
    {"gelu", OptimizationLevel::All, false, gelu},
    {"attention", OptimizationLevel::All, false, attention},
    {"linear-pack-fuse", OptimizationLevel::All, true, linear_pack_fuse},
    {"conv-activation", OptimizationLevel::All, true, conv_activation},
    {"elementwise-chain", OptimizationLevel::All, true, elementwise_chain},
};

}  // namespace

std::span<const GraphPass> all_passes() {
  return kPasses;
}

std::vector<const GraphPass*> selected_passes(const SessionOptions& options) {
  std::vector<const GraphPass*> out;
  for (const GraphPass& p : kPasses) {
    if (static_cast<int>(options.optimization_level) < static_cast<int>(p.min_level)) continue;
    if (options.mode == ExecutionMode::Exact && !p.preserves_bits) continue;
    out.push_back(&p);
  }
  return out;
}

void run_passes(PassGraph& graph, const SessionOptions& options) {
  graph.exact = options.mode == ExecutionMode::Exact;
  for (const GraphPass* p : selected_passes(options)) {
    p->run(graph);
    graph.remove_dead();
  }
}

}  // namespace onemodel::passes

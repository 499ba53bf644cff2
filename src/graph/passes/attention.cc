// attention (does not preserve bits; fast mode only): the attention chain as exporters write it,
//   MatMul(Q, Kt) -> [Mul or Div by a constant scalar] -> [Add mask] -> Softmax(axis -1) -> MatMul(P, V),
// becomes one node running the fused kernel of kernels-attention.md. Transposes with an explicit perm in
// front of Q, Kt and V (the head split, for K also the key transpose) are absorbed as strides, and so is one
// Transpose after the chain (the head merge). Every absorbed or replaced intermediate must have the next node
// as its only reader and be no graph output. Softmax is matched from opset 13 on, where axis -1 means the
// last axis whatever the rank (the older coerce-to-2-D semantics need the rank, which a shape-free pass does
// not know). The fused node keeps the NodeInfo of the second MatMul, so errors still name a node of the
// model.
#include <vector>

#include "graph/ops/attention/attention_op.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

bool is_op(const CompiledNode& n, std::string_view type, size_t inputs) {
  return is_onnx_op(n, type) && n.inputs.size() == inputs && n.outputs.size() == 1;
}

// The node computing v when v's only reader is `reader` and the node has the given type; else nullptr.
const CompiledNode* single_use_producer(const PassGraph& g, const std::vector<int32_t>& producer, int32_t v,
                                        int32_t reader, std::string_view type, size_t inputs) {
  if (v < 0 || g.only_reader(v) != reader) return nullptr;
  const int32_t p = producer[static_cast<size_t>(v)];
  if (p < 0 || !is_op(g.nodes()[static_cast<size_t>(p)], type, inputs)) return nullptr;
  return &g.nodes()[static_cast<size_t>(p)];
}

// The explicit perm of a Transpose if it is a permutation of at most four axes; empty otherwise.
std::vector<int64_t> transpose_perm(const CompiledNode& t) {
  std::vector<int64_t> perm = t.info->get_ints("perm");
  if (perm.size() > 4) return {};
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(p)]) return {};
    seen[static_cast<size_t>(p)] = true;
  }
  return perm;
}

// An operand of the chain: the value the fused node reads and the transpose it applies to it.
struct Operand {
  int32_t value;
  std::vector<int64_t> perm;
};

// Walks back from value v (read by node `reader`) through single-reader Transposes, composing their perms.
Operand absorb_transposes(const PassGraph& g, const std::vector<int32_t>& producer, int32_t v,
                          int32_t reader) {
  Operand op{v, {}};
  while (const CompiledNode* t = single_use_producer(g, producer, op.value, reader, "Transpose", 1)) {
    const std::vector<int64_t> perm = transpose_perm(*t);
    if (perm.empty() || (!op.perm.empty() && op.perm.size() != perm.size())) break;
    // op.value = transpose(t's input, perm): axis i of the operand is now axis perm[op.perm[i]] of the input.
    std::vector<int64_t> composed(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      composed[i] = perm[static_cast<size_t>(op.perm.empty() ? i : op.perm[i])];
    op.perm = std::move(composed);
    reader = producer[static_cast<size_t>(op.value)];
    op.value = t->inputs[0];
  }
  return op;
}

// A float32 constant holding one value, of rank at most 2 (so multiplying the scores by it keeps their
// shape).
bool scalar_constant(const PassGraph& g, int32_t v, float& value) {
  const TensorRef* t = g.constant(v);
  if (t == nullptr || t->dtype != DType::F32 || t->count() != 1 || t->shape.rank > 2) return false;
  value = t->as<const float>()[0];
  return true;
}

// Matches v = [Mul or Div by a constant](MatMul(Q, Kt)), v read only by node `reader`. Fills the scale and
// returns the MatMul, or nullptr.
const CompiledNode* scaled_scores(const PassGraph& g, const std::vector<int32_t>& producer, int32_t v,
                                  int32_t reader, float& scale) {
  scale = 1.0f;
  const int32_t p = v >= 0 ? producer[static_cast<size_t>(v)] : -1;
  if (p < 0 || g.only_reader(v) != reader) return nullptr;
  const CompiledNode& n = g.nodes()[static_cast<size_t>(p)];
  int32_t scores = v;
  float c = 0.0f;
  if (is_op(n, "Mul", 2) && scalar_constant(g, n.inputs[1], c)) {
    scale = c, scores = n.inputs[0], reader = p;
  } else if (is_op(n, "Mul", 2) && scalar_constant(g, n.inputs[0], c)) {
    scale = c, scores = n.inputs[1], reader = p;
  } else if (is_op(n, "Div", 2) && scalar_constant(g, n.inputs[1], c)) {
    scale = 1.0f / c, scores = n.inputs[0], reader = p;
  }
  return single_use_producer(g, producer, scores, reader, "MatMul", 2);
}

// Fuses the chain ending in the Softmax at index s; false when it does not match.
bool fuse_at(PassGraph& g, const std::vector<int32_t>& producer, int32_t s) {
  const CompiledNode& softmax = g.nodes()[static_cast<size_t>(s)];
  if (!is_op(softmax, "Softmax", 1) || softmax.ir->opset < 13 || softmax.info->get_int("axis", -1) != -1) {
    return false;
  }
  const int32_t pv_index = g.only_reader(softmax.outputs[0]);
  if (pv_index < 0) return false;
  CompiledNode& pv = g.nodes()[static_cast<size_t>(pv_index)];
  if (!is_op(pv, "MatMul", 2) || pv.inputs[0] != softmax.outputs[0]) return false;

  ops::AttentionConfig config;
  int32_t mask = -1;
  const CompiledNode* qk = scaled_scores(g, producer, softmax.inputs[0], s, config.scale);
  if (qk == nullptr) {
    const CompiledNode* add = single_use_producer(g, producer, softmax.inputs[0], s, "Add", 2);
    if (add == nullptr) return false;
    const int32_t add_index = producer[static_cast<size_t>(softmax.inputs[0])];
    for (size_t i = 0; i < 2 && qk == nullptr; ++i) {
      qk = scaled_scores(g, producer, add->inputs[i], add_index, config.scale);
      mask = add->inputs[1 - i];
    }
    if (qk == nullptr || mask < 0) return false;
    config.has_mask = true;
  }
  const int32_t qk_index = producer[static_cast<size_t>(qk->outputs[0])];
  const Operand q = absorb_transposes(g, producer, qk->inputs[0], qk_index);
  const Operand kt = absorb_transposes(g, producer, qk->inputs[1], qk_index);
  const Operand v = absorb_transposes(g, producer, pv.inputs[1], pv_index);
  config.q_perm = q.perm, config.kt_perm = kt.perm, config.v_perm = v.perm;

  // The head merge after the chain.
  std::vector<int32_t> outputs = pv.outputs;
  int32_t merge = g.only_reader(pv.outputs[0]);
  if (merge >= 0) {
    const CompiledNode& t = g.nodes()[static_cast<size_t>(merge)];
    config.out_perm = is_op(t, "Transpose", 1) ? transpose_perm(t) : std::vector<int64_t>{};
    if (config.out_perm.empty())
      merge = -1;
    else
      outputs = t.outputs;
  }

  pv.kernel = ops::make_attention(config);
  pv.inputs = {q.value, kt.value, v.value};
  if (config.has_mask) pv.inputs.push_back(mask);
  pv.outputs = outputs;
  // The head-merge node computes the same value now, so it goes; the rest of the chain is dead and removed
  // after the pass.
  if (merge >= 0) g.nodes().erase(g.nodes().begin() + merge);
  return true;
}

}  // namespace

void attention(PassGraph& g) {
  for (size_t n = 0; n < g.nodes().size(); ++n) {
    if (g.nodes()[n].ir->op_type != "Softmax") continue;
    // A fusion erases a node after the Softmax, so the producer table is built afresh for each match.
    fuse_at(g, g.producers(), static_cast<int32_t>(n));
  }
}

}  // namespace onemodel::passes

// linear-pack-fuse (preserves bits): a MatMul, or a Gemm with alpha = 1 and no transA, whose B is a constant
// float32 matrix becomes a LinearOp (B packed once per kernel path). Without a C of its own, a following Add
// of a constant bias of n elements along the rows joins it; then a following activation
// (activation_epilogue.h). Gemm's beta * C is formed here with the one multiply the Gemm kernel makes per
// call. Every absorbed intermediate must have the next node as its only reader and not be a graph output.
#include <algorithm>

#include "graph/ops/linalg/linear_op.h"
#include "graph/passes/activation_epilogue.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

// The product's B (a constant float32 matrix) and form; false when the node is not a product to pack.
bool product_form(const PassGraph& g, const CompiledNode& n, ops::LinearForm& form, int64_t& cols) {
  if (n.outputs.size() != 1 || n.inputs.size() < 2 || n.inputs[0] < 0) return false;
  if (is_onnx_op(n, "MatMul")) {
    if (n.inputs.size() != 2) return false;
  } else if (is_onnx_op(n, "Gemm")) {
    if (n.inputs.size() > 3 || n.info->get_int("transA", 0) != 0 || n.info->get_float("alpha", 1.0f) != 1.0f)
      return false;
    form.gemm = true;
    form.trans_b = n.info->get_int("transB", 0) != 0;
  } else {
    return false;
  }
  const TensorRef* b = g.constant(n.inputs[1]);
  if (b == nullptr || b->dtype != DType::F32 || b->shape.rank != 2) return false;
  cols = form.trans_b ? b->shape[0] : b->shape[1];
  return true;
}

// A float32 constant of n elements laid along the last axis ([n] or [1, n]): one bias per column.
bool is_bias_vector(const TensorRef* t, int64_t n) {
  if (t == nullptr || t->dtype != DType::F32 || t->count() != n) return false;
  return (t->shape.rank == 1) || (t->shape.rank == 2 && t->shape[0] == 1);
}

// Gemm's C as a bias: beta * C per column, with C broadcast along the rows (n elements, or one); -1 when C is
// not such a constant. The product is the Gemm kernel's own float multiply, skipped for beta = 1 as it is.
int32_t gemm_bias(PassGraph& g, const CompiledNode& gemm, int64_t n) {
  const TensorRef* c = g.constant(gemm.inputs[2]);
  if (c == nullptr || c->dtype != DType::F32 || c->shape.rank > 2) return -1;
  const bool single = c->count() == 1;
  if (!single && !is_bias_vector(c, n)) return -1;
  const float beta = gemm.info->get_float("beta", 1.0f);
  if (beta == 1.0f && !single) return gemm.inputs[2];
  ConstTensor bias = ConstTensor::allocate(DType::F32, Shape{n});
  const float* from = c->as<const float>();
  float* to = bias.ref.as<float>();
  for (int64_t j = 0; j < n; ++j) {
    const float v = from[single ? 0 : j];
    to[j] = beta != 1.0f ? beta * v : v;
  }
  return g.add_constant(g.values()[static_cast<size_t>(gemm.inputs[2])].name + "/beta_c", std::move(bias));
}

}  // namespace

void linear_pack_fuse(PassGraph& g) {
  for (size_t p = 0; p < g.nodes().size(); ++p) {
    ops::LinearForm form;
    int64_t n = 0;
    if (!product_form(g, g.nodes()[p], form, n)) continue;
    int32_t bias = -1;
    const bool has_c = g.nodes()[p].inputs.size() == 3 && g.nodes()[p].inputs[2] >= 0;
    if (has_c && (bias = gemm_bias(g, g.nodes()[p], n)) < 0) continue;
    CompiledNode& product = g.nodes()[p];
    std::vector<int32_t> absorbed;  // indices of the Add and activation nodes folded in
    int32_t out = product.outputs[0];

    const int32_t add = has_c ? -1 : g.only_reader(out);
    if (add >= 0) {
      const CompiledNode& a = g.nodes()[static_cast<size_t>(add)];
      if (is_onnx_op(a, "Add") && a.inputs.size() == 2 && a.outputs.size() == 1) {
        const bool first = a.inputs[1] == out;
        const int32_t other = first ? a.inputs[0] : a.inputs[1];
        if (other != out && is_bias_vector(g.constant(other), n)) {
          bias = other;
          form.bias_first = first;
          absorbed.push_back(add);
          out = a.outputs[0];
        }
      }
    }
    std::unique_ptr<const ops::FusedEpilogue> epilogue;
    std::vector<int32_t> extra_inputs;
    const int32_t act = g.only_reader(out);
    if (act >= 0) {
      CompiledNode& a = g.nodes()[static_cast<size_t>(act)];
      if (a.inputs[0] == out && is_epilogue_activation(g, a)) {
        extra_inputs.assign(a.inputs.begin() + 1, a.inputs.end());
        epilogue = take_activation(a, ops::kLinearInputs);
        absorbed.push_back(act);
        out = a.outputs[0];
      }
    }

    // B moves into the kernel: once nothing else reads it, the graph releases its copy after this pass.
    ConstTensor b = *g.values()[static_cast<size_t>(product.inputs[1])].constant;
    product.kernel = ops::make_linear(form, std::move(b), std::move(epilogue));
    product.inputs = {product.inputs[0], -1, bias};
    product.inputs.insert(product.inputs.end(), extra_inputs.begin(), extra_inputs.end());
    product.outputs = {out};
    std::sort(absorbed.rbegin(), absorbed.rend());
    for (int32_t i : absorbed) g.nodes().erase(g.nodes().begin() + i);
  }
}

}  // namespace onemodel::passes

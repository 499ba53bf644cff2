// matmul-integer-fusion (preserves bits; int8.md "Graph rewrites"): the product of dynamically quantized
// models, MatMulInteger(A, B[, a_zero_point, b_zero_point]) -> Cast(to float) -> Mul(scale)[-> Add(bias)],
// becomes one MatMulIntegerToFloat(A, B, scale, a_zero_point, b_zero_point, bias) node (com.microsoft), which
// computes float(acc) * scale (+ bias) with the same float32 operations in the same order. Multiplication and
// addition are commutative bit for bit, so either operand order of Mul and Add is taken.
//
// The fused node covers what it can prove equal without shapes (the graph is shape-free here): the scale has
// rank at most 1, known as a constant or as the product of such values and DynamicQuantizeLinear scales; a
// constant B (rank 2 or more) fixes the column count, which a scale of more than one element and the bias (a
// constant float32 vector) must equal. Every intermediate (the int32 product, the cast, the scaled product
// when an Add is absorbed) has the next node as its only reader. The fused node takes the place of the last
// absorbed node.
#include "graph/passes/graph_pass.h"
#include "graph/passes/table_kernel.h"

namespace onemodel::passes {
namespace {

bool is_op(const CompiledNode& n, std::string_view type, size_t min_inputs, size_t max_inputs) {
  return is_onnx_op(n, type) && n.inputs.size() >= min_inputs && n.inputs.size() <= max_inputs &&
         !n.outputs.empty() && n.outputs[0] >= 0;
}

class Fuser {
 public:
  explicit Fuser(PassGraph& g) : g_(g), producer_(g.producers()) {}

  void fuse(size_t matmul_index) {
    const CompiledNode& mm = g_.nodes()[matmul_index];
    if (!is_op(mm, "MatMulInteger", 2, 4) || mm.outputs.size() != 1) return;
    const CompiledNode* cast = only_reader_of_type(mm.outputs[0], "Cast", 1, 1);
    if (cast == nullptr || cast->info->get_int("to", 0) != static_cast<int64_t>(DType::F32)) return;
    const int32_t mul_index = g_.only_reader(cast->outputs[0]);
    const CompiledNode* mul = only_reader_of_type(cast->outputs[0], "Mul", 2, 2);
    if (mul == nullptr || mul->inputs[0] == mul->inputs[1]) return;
    const int32_t scale = mul->inputs[0] == cast->outputs[0] ? mul->inputs[1] : mul->inputs[0];
    // A constant B of rank 2 or more fixes the column count and gives the product rank 1 or more, so a
    // one-element scale broadcasts without changing the shape.
    const int64_t columns = constant_columns(mm.inputs[1]);
    if (columns < 0 || !fits_columns(scale_length(scale), columns)) return;

    int32_t last = mul_index, bias = -1;
    if (const CompiledNode* add = only_reader_of_type(mul->outputs[0], "Add", 2, 2)) {
      const int32_t candidate = add->inputs[0] == mul->outputs[0] ? add->inputs[1] : add->inputs[0];
      if (add->inputs[0] != add->inputs[1] && is_bias(candidate, columns)) {
        bias = candidate;
        last = g_.only_reader(mul->outputs[0]);
      }
    }
    CompiledNode& site = g_.nodes()[static_cast<size_t>(last)];
    const auto input = [&](size_t i) { return i < mm.inputs.size() ? mm.inputs[i] : -1; };
    std::vector<int32_t> inputs = {mm.inputs[0], mm.inputs[1], scale, input(2), input(3), bias};
    while (inputs.back() < 0) inputs.pop_back();
    TableNode described{"MatMulIntegerToFloat", "com.microsoft", 1, {}, {}};
    for (int32_t v : inputs) described.present.push_back(v >= 0);
    auto kernel = make_table_kernel(*site.info, std::move(described));
    if (kernel == nullptr) return;  // the operator is not registered in this build
    site.kernel = std::move(kernel);
    site.inputs = std::move(inputs);
  }

 private:
  // The only reader of v when it is a node of that type; else null.
  const CompiledNode* only_reader_of_type(int32_t v, std::string_view type, size_t min_inputs,
                                          size_t max_inputs) const {
    const int32_t r = g_.only_reader(v);
    if (r < 0) return nullptr;
    const CompiledNode& n = g_.nodes()[static_cast<size_t>(r)];
    return is_op(n, type, min_inputs, max_inputs) ? &n : nullptr;
  }

  // B's column count when B is a constant of rank 2 or more; -1 otherwise.
  int64_t constant_columns(int32_t b) const {
    const TensorRef* t = g_.constant(b);
    return t != nullptr && t->shape.rank >= 2 ? t->shape[t->shape.rank - 1] : -1;
  }

  static bool fits_columns(int64_t length, int64_t columns) {
    return length == 1 || (length > 1 && length == columns);
  }

  // The element count of a float32 value proved to have rank at most 1; -1 when unknown or not so. A
  // product of two such values has the larger count, when the counts broadcast.
  int64_t scale_length(int32_t v, int depth = 0) const {
    if (v < 0 || g_.values()[static_cast<size_t>(v)].is_input || depth > 2) return -1;
    if (const TensorRef* t = g_.constant(v)) {
      return t->dtype == DType::F32 && t->shape.rank <= 1 ? t->count() : -1;
    }
    const int32_t p = producer_[static_cast<size_t>(v)];
    if (p < 0) return -1;
    const CompiledNode& n = g_.nodes()[static_cast<size_t>(p)];
    if (n.ir->op_type == "DynamicQuantizeLinear" && n.ir->domain.empty() && n.outputs.size() == 3 &&
        n.outputs[1] == v) {
      return 1;
    }
    if (!is_op(n, "Mul", 2, 2)) return -1;
    const int64_t a = scale_length(n.inputs[0], depth + 1), b = scale_length(n.inputs[1], depth + 1);
    if (a < 0 || b < 0 || (a != b && a != 1 && b != 1)) return -1;
    return a > b ? a : b;
  }

  // A constant float32 vector of one value per column.
  bool is_bias(int32_t v, int64_t columns) const {
    const TensorRef* t = g_.constant(v);
    return t != nullptr && t->dtype == DType::F32 && t->shape.rank == 1 && t->count() == columns;
  }

  PassGraph& g_;
  std::vector<int32_t> producer_;
};

}  // namespace

void matmul_integer_fusion(PassGraph& g) {
  Fuser fuser(g);
  // Fusing rewrites only the last node of a pattern and never adds nodes, so indices stay valid.
  for (size_t n = 0; n < g.nodes().size(); ++n) fuser.fuse(n);
}

}  // namespace onemodel::passes

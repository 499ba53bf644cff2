// gelu (does not preserve bits; fast mode only): Gelu as exporters write it out becomes one node running the
// Gelu kernel of the same form.
//
// erf form, x * (1 + Erf(x / sqrt2)) * 0.5: the division as Div(x, sqrt2) or Mul(x, 1/sqrt2).
// tanh form, x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) * 0.5: the cube as Pow(x, 3) or x * x * x in
// either grouping.
// Both: the three factors x, s = (1 + f) and 0.5 multiplied in any grouping, ((x * s) * 0.5),
// ((x * 0.5) * s) or (x * (s * 0.5)), and every two-operand node in either operand order. The constants are
// rank-0 float32 values within two float ulps of the true ones (rank 0, so the fused node's output has x's
// shape), and every intermediate has the next node as its only reader and is no graph output. The fused node
// keeps the NodeInfo of the last Mul, so errors still name a node of the model.
#include <cmath>

#include "graph/ops/elementwise/factories.h"
#include "graph/passes/graph_pass.h"

namespace onemodel::passes {
namespace {

constexpr double kSqrt2 = 1.41421356237309504880, kSqrt2OverPi = 0.79788456080286535588, kKappa = 0.044715;

bool is_op(const CompiledNode& n, std::string_view type, size_t inputs) {
  return is_onnx_op(n, type) && n.inputs.size() == inputs && n.outputs.size() == 1;
}

// The operand of a two-input node that is not `v`; -1 when v is not exactly one of them.
int32_t other_operand(const CompiledNode& n, int32_t v) {
  if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
  if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
  return -1;
}

class Matcher {
 public:
  explicit Matcher(const PassGraph& g) : g_(g), producer_(g.producers()) {}

  // From a node computing f (Erf or Tanh), the Mul node that finishes the pattern, and x; -1 when the
  // pattern does not match.
  int32_t match(const CompiledNode& f, bool tanh_form, int32_t& x) const {
    if (f.inputs[0] < 0 || g_.only_reader(f.inputs[0]) < 0) return -1;
    const CompiledNode* arg = producer(f.inputs[0]);
    if (arg == nullptr) return -1;
    x = tanh_form ? tanh_input(*arg) : erf_input(*arg);
    if (x < 0 || g_.constant(x) != nullptr) return -1;
    return finish(f.outputs[0], x);
  }

 private:
  // The node computing value v, or null.
  const CompiledNode* producer(int32_t v) const {
    const int32_t p = v >= 0 ? producer_[static_cast<size_t>(v)] : -1;
    return p >= 0 ? &g_.nodes()[static_cast<size_t>(p)] : nullptr;
  }

  // The node computing v when it has that type and v has no reader but `reader`.
  const CompiledNode* single_use(int32_t v, std::string_view type, const CompiledNode& reader) const {
    const CompiledNode* p = producer(v);
    if (p == nullptr || !is_op(*p, type, 2)) return nullptr;
    const int32_t r = g_.only_reader(v);
    return r >= 0 && &g_.nodes()[static_cast<size_t>(r)] == &reader ? p : nullptr;
  }

  // A rank-0 float32 constant within two ulps of `want` (exporters round sqrt2 and 1/sqrt2 differently).
  bool constant_near(int32_t v, double want) const {
    const TensorRef* t = g_.constant(v);
    if (t == nullptr || t->dtype != DType::F32 || t->shape.rank != 0) return false;
    const double c = t->as<const float>()[0];
    return std::fabs(c - want) <= std::fabs(want) * 0x1p-22;
  }

  // For a Mul node with one operand the constant `want`, the other operand; else -1.
  int32_t scaled_by(const CompiledNode& mul, double want) const {
    if (!is_op(mul, "Mul", 2)) return -1;
    for (size_t i = 0; i < 2; ++i) {
      if (constant_near(mul.inputs[i], want)) return mul.inputs[1 - i];
    }
    return -1;
  }

  // The node `only_reader` of value v when it has that type, or -1.
  int32_t reader_of_type(int32_t v, std::string_view type) const {
    const int32_t r = g_.only_reader(v);
    return r >= 0 && is_op(g_.nodes()[static_cast<size_t>(r)], type, 2) ? r : -1;
  }

  // x when `arg` computes x / sqrt2 or x * (1/sqrt2); else -1.
  int32_t erf_input(const CompiledNode& arg) const {
    if (is_op(arg, "Div", 2)) return constant_near(arg.inputs[1], kSqrt2) ? arg.inputs[0] : -1;
    return scaled_by(arg, 1.0 / kSqrt2);
  }

  // x when `arg` computes sqrt(2/pi) * (x + 0.044715 * x^3); else -1.
  int32_t tanh_input(const CompiledNode& arg) const {
    const int32_t inner = scaled_by(arg, kSqrt2OverPi);
    const CompiledNode* sum = inner >= 0 ? single_use(inner, "Add", arg) : nullptr;
    if (sum == nullptr) return -1;
    for (size_t i = 0; i < 2; ++i) {
      const int32_t x = sum->inputs[1 - i];
      const CompiledNode* scaled = single_use(sum->inputs[i], "Mul", *sum);
      const int32_t cube = scaled != nullptr ? scaled_by(*scaled, kKappa) : -1;
      if (cube >= 0 && is_cube(cube, x, *scaled)) return x;
    }
    return -1;
  }

  // Whether value v, read only by `reader`, is Pow(x, 3), (x * x) * x or x * (x * x).
  bool is_cube(int32_t v, int32_t x, const CompiledNode& reader) const {
    if (const CompiledNode* pow = single_use(v, "Pow", reader))
      return pow->inputs[0] == x && constant_near(pow->inputs[1], 3.0);
    const CompiledNode* outer = single_use(v, "Mul", reader);
    const int32_t square = outer != nullptr ? other_operand(*outer, x) : -1;
    const CompiledNode* inner = square >= 0 ? single_use(square, "Mul", *outer) : nullptr;
    return inner != nullptr && inner->inputs[0] == x && inner->inputs[1] == x;
  }

  // From the value of f, s = 1 + f and the three-factor product x * s * 0.5; the last Mul, or -1.
  int32_t finish(int32_t f, int32_t x) const {
    const int32_t add = reader_of_type(f, "Add");
    if (add < 0 || !constant_near(other_operand(g_.nodes()[static_cast<size_t>(add)], f), 1.0)) return -1;
    const int32_t s = g_.nodes()[static_cast<size_t>(add)].outputs[0];
    const int32_t m1 = reader_of_type(s, "Mul");
    if (m1 < 0) return -1;
    const CompiledNode& first = g_.nodes()[static_cast<size_t>(m1)];
    const int32_t o1 = other_operand(first, s);
    if (o1 < 0) return -1;
    const int32_t m2 = reader_of_type(first.outputs[0], "Mul");
    const int32_t o2 = m2 >= 0 ? other_operand(g_.nodes()[static_cast<size_t>(m2)], first.outputs[0]) : -1;
    if (o1 == x) return o2 >= 0 && constant_near(o2, 0.5) ? m2 : -1;  // (x * s) * 0.5
    if (constant_near(o1, 0.5)) return o2 == x ? m2 : -1;             // x * (s * 0.5)
    const CompiledNode* half = single_use(o1, "Mul", first);          // (x * 0.5) * s
    return half != nullptr && constant_near(other_operand(*half, x), 0.5) ? m1 : -1;
  }

  const PassGraph& g_;
  std::vector<int32_t> producer_;
};

}  // namespace

void gelu(PassGraph& g) {
  const Matcher matcher(g);
  for (const CompiledNode& f : g.nodes()) {
    const bool tanh_form = is_op(f, "Tanh", 1);
    if (!tanh_form && !is_op(f, "Erf", 1)) continue;
    int32_t x = -1;
    const int32_t last = matcher.match(f, tanh_form, x);
    if (last < 0) continue;
    // The last Mul becomes the Gelu; the other nodes of the pattern now feed nothing and are removed.
    CompiledNode& fused = g.nodes()[static_cast<size_t>(last)];
    fused.kernel = ops::make_fused_gelu(tanh_form);
    fused.inputs = {x};
  }
}

}  // namespace onemodel::passes

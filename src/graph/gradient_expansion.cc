// Gradient (ai.onnx.preview.training, opset 1) as a rewrite of the imported graph rather than a kernel: the
// derivative is itself a graph over the forward one (it reuses the forward values, the derivative rules are
// a few standard operators each), so expressing it in those operators reuses their kernels, their shape
// inference and their exact paths, and the compiled graph, the plans and src/graph/op.h stay unaware of
// training. A kernel would instead have to hold and evaluate a private copy of the forward subgraph.
//
// Exact mode: every emitted operator (Add, Sub, Mul, Div, Neg, Identity, Where, Greater, CastLike, Shape,
// Expand, Concat, Equal, Not, NonZero, Reshape, ReduceSum) has an exact kernel, and the rewrite is a pure
// function of the graph (nodes are visited in graph order, contributions to one gradient are summed in the
// reverse order of the nodes that make them), so the derivative is bit-identical wherever exact mode runs.
#include "graph/gradient_expansion.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "graph/compiled_graph.h"

namespace onemodel {
namespace {

using Kind = SessionError::Kind;

constexpr std::string_view kTrainingDomain = "ai.onnx.preview.training";
// The ai.onnx opset of every emitted node, whatever the model imports: ReduceSum reads its axes from an input
// (opset 13 on), CastLike exists (15 on) and Reshape has allowzero (14 on).
constexpr int64_t kEmittedOpset = 18;
constexpr int32_t kFloat = 1, kInt64 = 7;

bool is_gradient(const ir::Node& n) {
  return n.op_type == "Gradient" && n.domain == kTrainingDomain;
}

// The operators with a derivative rule, and how many inputs each reads.
enum class Rule { Add, Sub, Mul, Div, Neg, Identity, Relu, Sigmoid, Tanh, Exp };

struct RuleRow {
  std::string_view op_type;
  Rule rule;
  size_t arity;
};

constexpr RuleRow kRules[] = {
    {"Add", Rule::Add, 2},   {"Sub", Rule::Sub, 2},         {"Mul", Rule::Mul, 2},
    {"Div", Rule::Div, 2},   {"Neg", Rule::Neg, 1},         {"Identity", Rule::Identity, 1},
    {"Relu", Rule::Relu, 1}, {"Sigmoid", Rule::Sigmoid, 1}, {"Tanh", Rule::Tanh, 1},
    {"Exp", Rule::Exp, 1},
};
constexpr const char* kRuleList = "Add, Sub, Mul, Div, Neg, Identity, Relu, Sigmoid, Tanh and Exp";

const RuleRow* rule_of(const ir::Node& n) {
  if (!(n.domain.empty() || n.domain == "ai.onnx")) return nullptr;
  for (const RuleRow& row : kRules) {
    if (row.op_type == n.op_type) return &row;
  }
  return nullptr;
}

// As NodeInfo::display_name: the name, or "Type #index" when unnamed.
std::string display_name(const ir::Node& n) {
  return n.name.empty() ? n.op_type + " #" + std::to_string(n.file_index) : n.name;
}

std::string label(const ir::Node& n) {
  return n.op_type + " node '" + display_name(n) + "'";
}

ir::Attribute int_attribute(std::string name, int64_t value) {
  ir::Attribute a;
  a.name = std::move(name);
  a.type = ir::AttrType::Int;
  a.i = value;
  return a;
}

// The numpy broadcast of two fixed shapes, or nothing when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1, db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[out.size() - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

// What a node reads: its inputs, then the values its subgraphs capture.
std::vector<int32_t> reads_of(const ir::Node& n) {
  std::vector<int32_t> reads = n.inputs;
  const std::vector<int32_t> captured = subgraph_reads(n);
  reads.insert(reads.end(), captured.begin(), captured.end());
  return reads;
}

// Replaces one Gradient node of `graph` by its expansion, appended after the other nodes (order_nodes then
// restores a topological order).
class Expansion {
 public:
  Expansion(ir::Model& model, ir::Graph& graph, size_t at)
      : model_(model), graph_(graph), at_(at), gradient_(graph.nodes[at]) {
    prefix_ = display_name(gradient_) + "/onemodel.gradient/";
  }

  void run() {
    const std::vector<std::string> xs = names("xs", true), zs = names("zs", false);
    const ir::Attribute* y_attr = gradient_.find("y");
    if (y_attr == nullptr || y_attr->type != ir::AttrType::String) fail("needs the string attribute 'y'");
    if (xs.empty()) fail("attribute 'xs' names no tensor");
    std::vector<int32_t> leaves;
    for (const std::string& name : xs) leaves.push_back(lookup(name, "xs"));
    for (const std::string& name : zs) leaves.push_back(lookup(name, "zs"));
    const int32_t y = lookup(y_attr->s, "y");
    if (gradient_.inputs.size() != leaves.size()) {
      fail("has " + std::to_string(gradient_.inputs.size()) + " inputs; xs and zs name " +
           std::to_string(leaves.size()) + " tensors, one per input");
    }
    if (gradient_.outputs.size() > xs.size()) {
      fail("has " + std::to_string(gradient_.outputs.size()) + " outputs, more than the " +
           std::to_string(xs.size()) + " tensors xs names");
    }
    if (std::find(gradient_.inputs.begin(), gradient_.inputs.end(), -1) != gradient_.inputs.end()) {
      fail("an input is omitted; each gives the value of a tensor named in xs or zs");
    }

    const std::vector<size_t> path = forward_path(leaves, y);
    for (size_t n : path) check_differentiable(graph_.nodes[n]);
    substitute_inputs(leaves, path);
    backpropagate(y, path);
    for (size_t k = 0; k < gradient_.outputs.size(); ++k) {
      if (gradient_.outputs[k] < 0) continue;
      const int32_t x = leaves[k];
      const int32_t grad =
          grads_[static_cast<size_t>(x)] >= 0 ? grads_[static_cast<size_t>(x)] : fill_like(forward(x), 0.0f);
      emit("Identity", {grad}, {}, gradient_.outputs[k]);
    }
    graph_.nodes.erase(graph_.nodes.begin() + static_cast<std::ptrdiff_t>(at_));
    for (ir::Node& n : added_) graph_.nodes.push_back(std::move(n));
  }

 private:
  [[noreturn]] void fail(const std::string& message, Kind kind = Kind::InvalidModel) const {
    throw SessionError(kind, label(gradient_) + ": " + message, display_name(gradient_));
  }

  std::vector<std::string> names(std::string_view attr, bool required) const {
    const ir::Attribute* a = gradient_.find(attr);
    if (a == nullptr && !required) return {};
    if (a == nullptr || a->type != ir::AttrType::Strings) {
      fail("needs the attribute '" + std::string(attr) + "', a list of tensor names");
    }
    return a->strings;
  }

  int32_t lookup(const std::string& name, std::string_view attr) const {
    const int32_t id = graph_.find_value(name);
    if (id < 0)
      fail("attribute '" + std::string(attr) + "' names '" + name + "', which is no tensor of the graph");
    return id;
  }

  // The nodes through which a leaf (a tensor of xs or zs) reaches y, in graph order; also marks the values
  // that depend on a leaf. Differentiation stops at the leaves: their producers are not on the path.
  std::vector<size_t> forward_path(const std::vector<int32_t>& leaves, int32_t y) {
    const size_t count = graph_.values.size();
    std::vector<bool> leaf(count, false), needed(count, false);
    depends_.assign(count, false);
    for (int32_t l : leaves) leaf[static_cast<size_t>(l)] = depends_[static_cast<size_t>(l)] = true;
    for (const ir::Node& n : graph_.nodes) {
      const std::vector<int32_t> reads = reads_of(n);
      if (std::none_of(reads.begin(), reads.end(),
                       [&](int32_t r) { return r >= 0 && depends_[size_t(r)]; })) {
        continue;
      }
      for (int32_t o : n.outputs) {
        if (o >= 0) depends_[static_cast<size_t>(o)] = true;
      }
    }
    needed[static_cast<size_t>(y)] = true;
    std::vector<size_t> path;
    for (size_t k = graph_.nodes.size(); k-- > 0;) {
      const ir::Node& n = graph_.nodes[k];
      const bool feeds_y = std::any_of(n.outputs.begin(), n.outputs.end(), [&](int32_t o) {
        return o >= 0 && needed[size_t(o)] && !leaf[size_t(o)];
      });
      const std::vector<int32_t> reads = reads_of(n);
      if (!feeds_y || std::none_of(reads.begin(), reads.end(),
                                   [&](int32_t r) { return r >= 0 && depends_[size_t(r)]; })) {
        continue;
      }
      path.push_back(k);
      for (int32_t r : reads) {
        if (r >= 0) needed[static_cast<size_t>(r)] = true;
      }
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  void check_differentiable(const ir::Node& n) const {
    const RuleRow* row = rule_of(n);
    if (row == nullptr) {
      fail("cannot differentiate through " + label(n) +
               " on the path from xs to y (derivatives are known for " + kRuleList + ")",
           Kind::Unsupported);
    }
    if (n.inputs.size() != row->arity || n.outputs.size() != 1 || n.outputs[0] < 0 ||
        std::find(n.inputs.begin(), n.inputs.end(), -1) != n.inputs.end()) {
      fail(label(n) + " on the path from xs to y needs " + std::to_string(row->arity) +
           " inputs and one output");
    }
    const ir::Attribute* legacy = n.find("broadcast");
    if (n.opset < 7 && legacy != nullptr && legacy->i != 0) {
      fail("cannot differentiate through " + label(n) + ": its opset " + std::to_string(n.opset) +
               " broadcast attribute is not supported",
           Kind::Unsupported);
    }
  }

  // The Gradient's inputs are the values at which the derivative is taken. Where one differs from the tensor
  // its xs or zs entry names, the path is recomputed from it; otherwise the forward values are reused.
  void substitute_inputs(const std::vector<int32_t>& leaves, const std::vector<size_t>& path) {
    forward_.resize(graph_.values.size());
    std::iota(forward_.begin(), forward_.end(), 0);
    for (size_t k = 0; k < leaves.size(); ++k) forward_[static_cast<size_t>(leaves[k])] = gradient_.inputs[k];
    for (size_t n : path) {
      ir::Node copy = graph_.nodes[n];
      for (int32_t& i : copy.inputs) i = forward(i);
      if (copy.inputs == graph_.nodes[n].inputs) continue;
      const int32_t out = copy.outputs[0];
      copy.name = prefix_ + "forward/" + copy.name;
      copy.outputs = {new_value("forward")};
      forward_[static_cast<size_t>(out)] = copy.outputs[0];
      added_.push_back(std::move(copy));
    }
  }

  int32_t forward(int32_t v) const { return forward_[static_cast<size_t>(v)]; }

  void backpropagate(int32_t y, const std::vector<size_t>& path) {
    grads_.assign(graph_.values.size(), -1);
    if (depends_[static_cast<size_t>(y)]) grads_[static_cast<size_t>(y)] = fill_like(forward(y), 1.0f);
    for (size_t k = path.size(); k-- > 0;) {
      const ir::Node& n = graph_.nodes[path[k]];
      const int32_t g = grads_[static_cast<size_t>(n.outputs[0])];
      if (g >= 0) differentiate(n, g);
    }
  }

  // Adds to the gradients of n's inputs the contributions of the gradient g of its output.
  void differentiate(const ir::Node& n, int32_t g) {
    const int32_t a = n.inputs[0], b = n.inputs.size() > 1 ? n.inputs[1] : -1;
    const int32_t av = forward(a), bv = b >= 0 ? forward(b) : -1, cv = forward(n.outputs[0]);
    switch (rule_of(n)->rule) {
      case Rule::Add:
        contribute(a, [&] { return unbroadcast(g, av, bv); });
        contribute(b, [&] { return unbroadcast(g, bv, av); });
        break;
      case Rule::Sub:
        contribute(a, [&] { return unbroadcast(g, av, bv); });
        contribute(b, [&] { return unbroadcast(emit("Neg", {g}), bv, av); });
        break;
      case Rule::Mul:
        contribute(a, [&] { return unbroadcast(emit("Mul", {g, bv}), av, bv); });
        contribute(b, [&] { return unbroadcast(emit("Mul", {g, av}), bv, av); });
        break;
      case Rule::Div:  // c = a / b: dc/da = 1 / b, dc/db = -c / b
        contribute(a, [&] { return unbroadcast(emit("Div", {g, bv}), av, bv); });
        contribute(b, [&] {
          return unbroadcast(emit("Neg", {emit("Div", {emit("Mul", {g, cv}), bv})}), bv, av);
        });
        break;
      case Rule::Neg:
        contribute(a, [&] { return emit("Neg", {g}); });
        break;
      case Rule::Identity:
        contribute(a, [&] { return g; });
        break;
      case Rule::Relu:  // 0 where a <= 0, the derivative at 0 included
        contribute(a, [&] {
          const int32_t zero = scalar_like(av, 0.0f);
          return emit("Where", {emit("Greater", {av, zero}), g, zero});
        });
        break;
      case Rule::Sigmoid:  // c (1 - c)
        contribute(a, [&] {
          return emit("Mul", {g, emit("Mul", {cv, emit("Sub", {scalar_like(cv, 1.0f), cv})})});
        });
        break;
      case Rule::Tanh:  // 1 - c^2
        contribute(a, [&] {
          return emit("Mul", {g, emit("Sub", {scalar_like(cv, 1.0f), emit("Mul", {cv, cv})})});
        });
        break;
      case Rule::Exp:
        contribute(a, [&] { return emit("Mul", {g, cv}); });
        break;
    }
  }

  // Inputs that no leaf reaches get no gradient; one read several times sums its contributions.
  void contribute(int32_t input, const std::function<int32_t()>& contribution) {
    if (input < 0 || !depends_[static_cast<size_t>(input)]) return;
    const int32_t c = contribution();
    int32_t& sum = grads_[static_cast<size_t>(input)];
    sum = sum < 0 ? c : emit("Add", {sum, c});
  }

  // The fixed shape of v when the session enforces it (a fed graph input declaring every extent, or an
  // initializer); intermediate declarations are not checked at run time, so they are not trusted.
  std::optional<std::vector<int64_t>> enforced_shape(int32_t v) const {
    const ir::Value& value = graph_.values[static_cast<size_t>(v)];
    if (value.initializer >= 0) return graph_.initializers[static_cast<size_t>(value.initializer)].dims;
    if (value.source != ir::Value::Source::Input || !value.type.has_shape) return std::nullopt;
    std::vector<int64_t> dims;
    for (const ir::Dim& d : value.type.dims) {
      if (d.value < 0) return std::nullopt;
      dims.push_back(d.value);
    }
    return dims;
  }

  // g, the gradient of the broadcast of `operand` with `other`, summed back to the shape of operand: over the
  // leading axes operand lacks and over its extents of 1 that were stretched.
  int32_t unbroadcast(int32_t g, int32_t operand, int32_t other) {
    const auto shape = enforced_shape(operand), other_shape = enforced_shape(other);
    if (shape && other_shape && broadcast(*shape, *other_shape) == shape) return g;
    const int32_t grad_shape = emit("Shape", {g}), operand_shape = emit("Shape", {operand});
    const int32_t missing_rank = emit("Sub", {emit("Shape", {grad_shape}), emit("Shape", {operand_shape})});
    const int32_t padded = emit("Concat", {emit("Expand", {int64_constant(1), missing_rank}), operand_shape},
                                {int_attribute("axis", 0)});
    const int32_t stretched = emit("Not", {emit("Equal", {padded, grad_shape})});
    const int32_t axes = emit("Reshape", {emit("NonZero", {stretched}), int64_constant(-1)});
    const int32_t sum = emit("ReduceSum", {g, axes}, {int_attribute("noop_with_empty_axes", 1)});
    return emit("Reshape", {sum, operand_shape}, {int_attribute("allowzero", 1)});
  }

  // A scalar of v's element type.
  int32_t scalar_like(int32_t v, float value) { return emit("CastLike", {float_constant(value), v}); }

  // A tensor of v's type and shape filled with value.
  int32_t fill_like(int32_t v, float value) {
    return emit("Expand", {scalar_like(v, value), emit("Shape", {v})});
  }

  int32_t float_constant(float value) { return constant(kFloat, {}, &value, sizeof value); }
  int32_t int64_constant(int64_t value) { return constant(kInt64, {1}, &value, sizeof value); }

  // A new initializer; its bytes live in the model's storage.
  int32_t constant(int32_t elem_type, std::vector<int64_t> dims, const void* data, size_t size) {
    auto bytes = std::make_shared<std::vector<std::byte>>(size);
    std::memcpy(bytes->data(), data, size);
    model_.storage.push_back(bytes);
    ir::TensorData t;
    t.name = prefix_ + "constant" + std::to_string(graph_.values.size());
    t.elem_type = elem_type;
    t.dims = dims;
    t.bytes = std::span<const std::byte>(bytes->data(), bytes->size());
    ir::Value v;
    v.name = t.name;
    v.source = ir::Value::Source::Initializer;
    v.type.kind = ir::Type::Kind::Tensor;
    v.type.elem_type = elem_type;
    v.type.has_shape = true;
    for (int64_t d : dims) v.type.dims.push_back(ir::Dim{d, {}});
    v.initializer = static_cast<int32_t>(graph_.initializers.size());
    graph_.initializers.push_back(std::move(t));
    graph_.values.push_back(std::move(v));
    return static_cast<int32_t>(graph_.values.size() - 1);
  }

  int32_t new_value(std::string_view what) {
    ir::Value v;
    v.name = prefix_ + std::string(what) + std::to_string(graph_.values.size());
    graph_.values.push_back(std::move(v));
    return static_cast<int32_t>(graph_.values.size() - 1);
  }

  // Appends a standard node; returns its output (a new value unless `output` is given).
  int32_t emit(std::string_view op_type, std::vector<int32_t> inputs,
               std::vector<ir::Attribute> attributes = {}, int32_t output = -1) {
    ir::Node n;
    n.op_type = std::string(op_type);
    n.name = prefix_ + n.op_type + std::to_string(added_.size());
    n.opset = kEmittedOpset;
    n.inputs = std::move(inputs);
    n.outputs = {output >= 0 ? output : new_value(n.op_type)};
    n.attributes = std::move(attributes);
    n.file_index = gradient_.file_index;
    n.field_path = gradient_.field_path;
    added_.push_back(std::move(n));
    return added_.back().outputs[0];
  }

  ir::Model& model_;
  ir::Graph& graph_;
  size_t at_;
  const ir::Node gradient_;  // a copy: graph_.nodes changes at the end
  std::string prefix_;       // of the names of everything added
  std::vector<bool> depends_;
  std::vector<int32_t> forward_, grads_;  // per value of the original graph
  std::vector<ir::Node> added_;
};

// Sorts the nodes into a topological order that keeps the existing order where it can, and rebuilds the
// producers and consumers; false on a cycle, which only a Gradient whose y reads its own outputs makes (as a
// constant factor: through a differentiated path it is refused as a Gradient node on the path).
bool order_nodes(ir::Graph& g) {
  const size_t count = g.nodes.size();
  std::vector<int32_t> producer(g.values.size(), -1), pending(count, 0);
  for (size_t n = 0; n < count; ++n) {
    for (int32_t o : g.nodes[n].outputs) {
      if (o >= 0) producer[static_cast<size_t>(o)] = static_cast<int32_t>(n);
    }
  }
  std::vector<std::vector<int32_t>> readers(count);
  for (size_t n = 0; n < count; ++n) {
    for (int32_t r : reads_of(g.nodes[n])) {
      const int32_t p = r >= 0 ? producer[static_cast<size_t>(r)] : -1;
      if (p < 0 || p == static_cast<int32_t>(n)) continue;
      readers[static_cast<size_t>(p)].push_back(static_cast<int32_t>(n));
      ++pending[n];
    }
  }
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (size_t n = 0; n < count; ++n) {
    if (pending[n] == 0) ready.push(static_cast<int32_t>(n));
  }
  std::vector<ir::Node> sorted;
  while (!ready.empty()) {
    const auto n = static_cast<size_t>(ready.top());
    ready.pop();
    for (int32_t r : readers[n]) {
      if (--pending[static_cast<size_t>(r)] == 0) ready.push(r);
    }
    sorted.push_back(std::move(g.nodes[n]));
  }
  if (sorted.size() != count) return false;
  g.nodes = std::move(sorted);
  g.consumers.assign(g.values.size(), {});
  for (size_t n = 0; n < count; ++n) {
    const auto node = static_cast<int32_t>(n);
    for (int32_t o : g.nodes[n].outputs) {
      if (o >= 0) g.values[static_cast<size_t>(o)].producer = node;
    }
    for (int32_t r : reads_of(g.nodes[n])) {
      if (r < 0) continue;
      auto& list = g.consumers[static_cast<size_t>(r)];
      if (list.empty() || list.back() != node) list.push_back(node);
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const ir::Model> expand_gradients(std::shared_ptr<const ir::Model> model) {
  const std::vector<ir::Node>& nodes = model->graph->nodes;
  if (std::none_of(nodes.begin(), nodes.end(), is_gradient)) return model;
  auto copy = std::make_shared<ir::Model>(*model);
  copy->graph = std::make_shared<ir::Graph>(*model->graph);
  copy->storage.push_back(model);  // the copied graph's tensors view bytes the original keeps alive
  for (;;) {
    std::vector<ir::Node>& current = copy->graph->nodes;
    const auto it = std::find_if(current.begin(), current.end(), is_gradient);
    if (it == current.end()) break;
    const ir::Node gradient = *it;
    Expansion(*copy, *copy->graph, static_cast<size_t>(it - current.begin())).run();
    if (!order_nodes(*copy->graph)) {
      throw SessionError(Kind::InvalidModel, label(gradient) + ": y depends on the Gradient's own outputs",
                         display_name(gradient));
    }
  }
  return copy;
}

}  // namespace onemodel

#include "graph/compiled_graph.h"

#include <algorithm>
#include <cstring>

#include "graph/gradient_expansion.h"
#include "graph/half_adapter.h"
#include "graph/passes/graph_pass.h"
#include "graph/string_values.h"

namespace onemodel {
namespace {

TensorInfo describe(const ir::Value& v) {
  TensorInfo t;
  t.name = v.name;
  if (v.type.kind == ir::Type::Kind::Sequence || v.type.kind == ir::Type::Kind::Optional) {
    t.kind = v.type.kind == ir::Type::Kind::Sequence ? ValueKind::Sequence : ValueKind::Optional;
    t.dtype = DType::U8;  // packed (graph-runtime.md §8), no declared shape
    return t;
  }
  if (is_stored_dtype(v.type.elem_type)) t.dtype = static_cast<DType>(v.type.elem_type);
  t.has_shape = v.type.has_shape;
  for (const ir::Dim& d : v.type.dims) t.dims.push_back(Dim{d.value, d.param});
  return t;
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// The graphs held by a node's attributes (If's branches, Loop's and Scan's bodies).
template <class Fn>
void for_each_subgraph(const ir::Node& node, Fn&& fn) {
  for (const ir::Attribute& a : node.attributes) {
    if (a.g) fn(*a.g);
    for (const auto& g : a.graphs) {
      if (g) fn(*g);
    }
  }
}

// Nodes with a path to a graph output, in graph order (graph-runtime.md §3 step 3).
std::vector<bool> live_nodes(const ir::Graph& g) {
  std::vector<bool> needed_value(g.values.size(), false), live(g.nodes.size(), false);
  for (int32_t o : g.outputs) needed_value[static_cast<size_t>(o)] = true;
  for (size_t n = g.nodes.size(); n-- > 0;) {
    const ir::Node& node = g.nodes[n];
    bool any = std::any_of(node.outputs.begin(), node.outputs.end(),
                           [&](int32_t o) { return o >= 0 && needed_value[static_cast<size_t>(o)]; });
    if (!any) continue;
    live[n] = true;
    for (int32_t i : node.inputs) {
      if (i >= 0) needed_value[static_cast<size_t>(i)] = true;
    }
    for (int32_t i : subgraph_reads(node)) needed_value[static_cast<size_t>(i)] = true;
  }
  return live;
}

// Every operator without a kernel in the live part of `g` and of the subgraphs its live nodes hold.
void collect_missing(const ir::Graph& g, std::vector<std::string>& missing) {
  std::vector<bool> live = live_nodes(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!live[n]) continue;
    const ir::Node& node = g.nodes[n];
    if (!find_op(node.domain, node.op_type, node.opset)) {
      std::string label = operator_label(node);
      if (std::find(missing.begin(), missing.end(), label) == missing.end()) missing.push_back(label);
    }
    for_each_subgraph(node, [&](const ir::Graph& body) { collect_missing(body, missing); });
  }
}

// Graph inputs and outputs must be tensors of a stored element type (an undeclared type is accepted), or
// sequences and optionals, which travel packed.
void check_stored(const ir::Value& v) {
  using K = ir::Type::Kind;
  if (v.type.kind == K::Sequence || v.type.kind == K::Optional) return;
  static constexpr const char* kKinds[] = {"", "", "", "a map", "", "a sparse tensor", "opaque"};
  if (v.type.kind != K::None && v.type.kind != K::Tensor) {
    throw SessionError(
        SessionError::Kind::Unsupported,
        "value '" + v.name + "' is " + kKinds[static_cast<int>(v.type.kind)] + ", not a tensor");
  }
  if (v.type.elem_type != 0 && !is_stored_dtype(v.type.elem_type)) {
    throw SessionError(SessionError::Kind::Unsupported, "value '" + v.name + "' has element type " +
                                                            std::string(onnx_type_name(v.type.elem_type)));
  }
}

bool usable_in_place(const ir::TensorData& t) {
  return !t.bytes.empty() && t.bytes.size() % 64 == 0 &&
         reinterpret_cast<uintptr_t>(t.bytes.data()) % 64 == 0;
}

// The tensor of a Constant node that can serve in place (see initializer_constant), or null. Such a node
// becomes a constant value like an initializer: make_constant would copy the bytes, and a model that stores
// its weights as Constant nodes would then hold them twice.
const ir::TensorData* in_place_constant(const ir::Node& node) {
  if (node.op_type != "Constant" || !(node.domain.empty() || node.domain == "ai.onnx")) return nullptr;
  if (node.outputs.size() != 1 || node.attributes.size() != 1) return nullptr;
  const ir::Attribute& a = node.attributes[0];
  if (a.name != "value" || a.type != ir::AttrType::Tensor || a.t == nullptr) return nullptr;
  const ir::TensorData& t = *a.t;
  if (!is_stored_dtype(t.elem_type) || t.dims.size() > static_cast<size_t>(kMaxRank)) return nullptr;
  if (!shape_problem(t.dims, dtype_size(static_cast<DType>(t.elem_type))).empty()) return nullptr;
  return usable_in_place(t) ? &t : nullptr;
}

// The initializer as the session keeps it. Bytes that already have the layout of ConstTensor::allocate
// (64-byte aligned, a whole number of 64-byte blocks, so no padding is missing) are used in place, keeping
// the model alive: the weights of a memory-mapped .onemodel file are not copied (docs/format.md). Constants
// are never written.
ConstTensor initializer_constant(const ir::TensorData& t, const std::shared_ptr<const ir::Model>& model) {
  const Shape shape = Shape::of(t.dims);
  if (t.elem_type == static_cast<int32_t>(DType::String)) {
    if (static_cast<int64_t>(t.strings.size()) != shape.count()) {
      throw SessionError(SessionError::Kind::InvalidModel,
                         "initializer '" + t.name + "' holds " + std::to_string(t.strings.size()) +
                             " strings, expected " + std::to_string(shape.count()));
    }
    const std::vector<std::string_view> views(t.strings.begin(), t.strings.end());
    return string_constant(views, shape);
  }
  const TensorRef expected{static_cast<DType>(t.elem_type), shape, nullptr};
  if (expected.bytes() != t.bytes.size()) {
    throw SessionError(SessionError::Kind::InvalidModel,
                       "initializer '" + t.name + "' holds " + std::to_string(t.bytes.size()) +
                           " bytes, expected " + std::to_string(expected.bytes()));
  }
  auto* data = const_cast<std::byte*>(t.bytes.data());
  if (usable_in_place(t)) {
    ConstTensor c;
    c.ref = TensorRef{expected.dtype, shape, data};
    c.storage = std::shared_ptr<std::byte>(model, data);
    return c;
  }
  ConstTensor c = ConstTensor::allocate(expected.dtype, shape);
  if (!t.bytes.empty()) std::memcpy(c.ref.data, t.bytes.data(), t.bytes.size());
  return c;
}

}  // namespace

std::string operator_label(const ir::Node& node) {
  std::string type =
      node.domain.empty() || node.domain == "ai.onnx" ? node.op_type : node.domain + "." + node.op_type;
  return type + " (opset " + std::to_string(node.opset) + ")";
}

std::vector<int32_t> subgraph_reads(const ir::Node& node) {
  std::vector<int32_t> reads;
  for_each_subgraph(node, [&](const ir::Graph& body) {
    for (int32_t c : body.captures) {
      const int32_t outer = body.values[static_cast<size_t>(c)].outer;
      if (outer >= 0 && std::find(reads.begin(), reads.end(), outer) == reads.end()) reads.push_back(outer);
    }
  });
  return reads;
}

// Bodies compile in the session's mode with the same model kept alive, and run no graph passes.
class CompiledGraph::BodyCompiler final : public SubgraphCompiler {
 public:
  BodyCompiler(std::shared_ptr<const ir::Model> model, const SessionOptions& options)
      : model_(std::move(model)), options_(options) {}
  std::shared_ptr<const CompiledGraph> compile(const ir::Graph& body) const override {
    return std::make_shared<const CompiledGraph>(model_, body, options_);
  }

 private:
  std::shared_ptr<const ir::Model> model_;
  SessionOptions options_;
};

CompiledGraph::CompiledGraph(std::shared_ptr<const ir::Model> model, const SessionOptions& options)
    : model_(expand_gradients(std::move(model))) {
  const ir::Graph& g = *model_->graph;
  std::vector<std::string> missing;  // every missing operator, subgraphs included, reported together
  collect_missing(g, missing);
  if (!missing.empty()) {
    throw SessionError(SessionError::Kind::UnsupportedOperator,
                       "The model uses operators this library does not implement: " + join(missing) + ".", {},
                       missing);
  }
  compile(g, options, false);
  compact_weights(nodes_, values_, options.weight_storage);
  for (const CompiledValue& v : values_) weight_bytes_ += v.constant ? v.constant->ref.bytes() : 0;
  // In exact mode a graph that stores half precision runs no passes: a fusion would skip the rounding to the
  // storage type between the operators it joins. Fast mode keeps those values in binary32 (wrap_half_nodes),
  // so its passes run. Plans still evaluate constant nodes.
  const bool half = model_uses_half(*model_);
  SessionOptions pass_options = options;
  if (half && options.mode == ExecutionMode::Exact) pass_options.optimization_level = OptimizationLevel::None;
  passes::PassGraph pass_graph(nodes_, values_);
  passes::run_passes(pass_graph, pass_options);  // graph-runtime.md §6: once, before any plan
  wrap_half_nodes(nodes_, values_, half, options.mode == ExecutionMode::Fast);
}

CompiledGraph::CompiledGraph(std::shared_ptr<const ir::Model> model, const ir::Graph& body,
                             const SessionOptions& options)
    : model_(std::move(model)) {
  compile(body, options, true);
  wrap_half_nodes(nodes_, values_, model_uses_half(*model_), options.mode == ExecutionMode::Fast);
}

CompiledGraph::~CompiledGraph() = default;

void CompiledGraph::compile(const ir::Graph& g, const SessionOptions& options, bool is_body) {
  compiler_ = std::make_unique<BodyCompiler>(model_, options);
  std::vector<bool> live = live_nodes(g);
  values_.resize(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ir::Value& iv = g.values[v];
    CompiledValue& cv = values_[v];
    cv.name = iv.name;
    cv.elem_type = iv.type.elem_type;
    if (iv.initializer >= 0) {
      const ir::TensorData& t = g.initializers[static_cast<size_t>(iv.initializer)];
      if (is_stored_dtype(t.elem_type))
        cv.constant = initializer_constant(t, model_);
      else
        cv.unstored_type = t.elem_type;
      if (cv.elem_type == 0) cv.elem_type = t.elem_type;
    } else if (iv.source == ir::Value::Source::SparseInitializer) {
      cv.unstored_type = -1;  // sparse initializers are not densified yet
    }
  }
  // A body's inputs are whatever its operator passes (untyped ones included), then the captured outer values.
  std::vector<int32_t> fed = g.inputs;
  if (is_body) fed.insert(fed.end(), g.captures.begin(), g.captures.end());
  for (int32_t i : fed) {
    const ir::Value& iv = g.values[static_cast<size_t>(i)];
    if (iv.initializer >= 0) continue;  // an input with a default is a constant here
    if (!is_body) check_stored(iv);
    values_[static_cast<size_t>(i)].is_input = true;
    input_ids_.push_back(i);
    inputs_.push_back(describe(iv));
  }
  for (int32_t o : g.outputs) {
    if (!is_body) check_stored(g.values[static_cast<size_t>(o)]);
    values_[static_cast<size_t>(o)].is_output = true;
    output_ids_.push_back(o);
    outputs_.push_back(describe(g.values[static_cast<size_t>(o)]));
  }

  std::vector<std::string> not_exact;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!live[n]) continue;
    const ir::Node& node = g.nodes[n];
    if (const ir::TensorData* t = in_place_constant(node)) {
      CompiledValue& out = values_[static_cast<size_t>(node.outputs[0])];
      out.constant = initializer_constant(*t, model_);
      if (out.elem_type == 0) out.elem_type = t->elem_type;
      continue;
    }
    CompiledNode cn;
    cn.ir = &node;
    cn.info = std::make_unique<NodeInfo>(node, g, compiler_.get());
    const OpDef* def = find_op(node.domain, node.op_type, node.opset);
    if (!def) {  // only in a body compiled outside a session's check
      throw SessionError(
          SessionError::Kind::UnsupportedOperator,
          "The model uses operators this library does not implement: " + operator_label(node) + ".", {},
          {operator_label(node)});
    }
    cn.kernel = def->factory(*cn.info);
    cn.inputs = node.inputs;
    std::vector<int32_t> captured = subgraph_reads(node);
    cn.inputs.insert(cn.inputs.end(), captured.begin(), captured.end());
    cn.captures = !captured.empty();
    cn.outputs = node.outputs;
    if (options.mode == ExecutionMode::Exact && !cn.kernel->supports_exact) {
      if (std::find(not_exact.begin(), not_exact.end(), node.op_type) == not_exact.end()) {
        not_exact.push_back(node.op_type);
      }
    }
    nodes_.push_back(std::move(cn));
  }
  if (!not_exact.empty()) {
    throw SessionError(SessionError::Kind::ExactModeUnavailable,
                       "Exact mode is not available: no exact kernel exists for " + join(not_exact) +
                           ". Use ExecutionMode::Fast or remove these operators.",
                       {}, not_exact);
  }
}

}  // namespace onemodel

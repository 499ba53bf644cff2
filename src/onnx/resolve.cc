#include "onnx/resolve.h"

#include <functional>
#include <queue>
#include <string_view>
#include <unordered_map>

namespace onemodel::onnx {

namespace {

using Source = ir::Value::Source;

// "path.field[index]", with the field spelled as the input format spells it (see ResolveEnv::manifest_paths).
std::string indexed(const ResolveEnv& env, const std::string& path, const char* field, size_t index) {
  return path + "." + field + (env.manifest_paths ? "s[" : "[") + std::to_string(index) + "]";
}

std::string node_label(const ir::Node& node) {
  return node.name.empty() ? "node #" + std::to_string(node.file_index) + " (" + node.op_type + ")"
                           : "node '" + node.name + "' (" + node.op_type + ")";
}

class GraphResolver;

// Resolves the graphs held by `pa` with `scope` as their enclosing graph (none for function bodies) and
// appends the ids of `scope` values they read to `reads`.
ir::Attribute resolve_attribute(ParsedAttribute& pa, const ResolveEnv& env, GraphResolver* scope,
                                std::vector<int32_t>& reads);

int64_t opset_of(const ir::Node& node, const ResolveEnv& env, int64_t offset) {
  const auto it = env.opsets.find(node.domain);
  if (it != env.opsets.end()) return it->second;
  if (!env.lenient) {
    throw ImportError(
        ImportError::Kind::InvalidModel,
        node_label(node) + " uses domain '" + node.domain + "', which the model does not import",
        env.input_name, offset, node.field_path);
  }
  return 0;
}

// One graph being resolved. Names map to value ids of this graph; a name found only in an enclosing graph
// becomes a local value of source Outer (and a capture), created on first use.
class GraphResolver {
 public:
  GraphResolver(ParsedGraph& parsed, const ResolveEnv& env, GraphResolver* parent)
      : parsed_(parsed), env_(env), parent_(parent), graph_(std::make_shared<ir::Graph>()) {}

  std::shared_ptr<ir::Graph> run() {
    graph_->name = parsed_.name;
    define_values();
    resolve_outputs_and_types();
    resolve_nodes();
    order_nodes();
    collect_consumers();
    // Last, because names_ views the names inside these tensors until now.
    for (auto& [tensor, offset] : parsed_.initializers) graph_->initializers.push_back(std::move(tensor));
    for (auto& [sparse, offset] : parsed_.sparse_initializers) {
      graph_->sparse_initializers.push_back(std::move(sparse));
    }
    return graph_;
  }

  // Id of the value `name` seen from this graph, or -1 when nothing defines it.
  int32_t lookup(std::string_view name) {
    if (const auto it = names_.find(name); it != names_.end()) return it->second;
    int32_t outer = -1;
    if (parent_) {
      outer = parent_->lookup(name);
      if (outer < 0) return -1;
    } else if (!env_.lenient) {
      return -1;
    }
    ir::Value v;
    v.name = std::string(name);
    v.source = Source::Outer;
    v.outer = outer;
    if (parent_) v.type = parent_->graph_->values[static_cast<size_t>(outer)].type;
    const int32_t id = add_value(name, std::move(v));
    graph_->captures.push_back(id);
    return id;
  }

 private:
  [[noreturn]] void fail(std::string message, int64_t offset, std::string path) const {
    throw ImportError(ImportError::Kind::InvalidModel, std::move(message), env_.input_name, offset,
                      std::move(path));
  }

  int32_t add_value(std::string_view name, ir::Value v) {
    const auto id = static_cast<int32_t>(graph_->values.size());
    graph_->values.push_back(std::move(v));
    names_.emplace(name, id);
    return id;
  }

  // `path` makes the field path for an error; it is only called then, so success builds no strings.
  template <class PathFn>
  int32_t define(const std::string& name, Source source, int64_t offset, PathFn&& path) {
    if (name.empty()) fail("a value without a name", offset, path());
    if (names_.count(name)) fail("value '" + name + "' is defined more than once", offset, path());
    ir::Value v;
    v.name = name;
    v.source = source;
    return add_value(name, std::move(v));
  }

  // Inputs, initializers, sparse initializers and node outputs, in that order.
  void define_values() {
    ir::Graph& g = *graph_;
    for (size_t k = 0; k < parsed_.inputs.size(); ++k) {
      ParsedValueInfo& in = parsed_.inputs[k];
      const int32_t id = define(in.name, Source::Input, in.offset,
                                [&] { return indexed(env_, parsed_.field_path, "input", k); });
      g.values[static_cast<size_t>(id)].type = std::move(in.type);
      g.inputs.push_back(id);
    }
    for (size_t k = 0; k < parsed_.initializers.size(); ++k) {
      const auto& [tensor, offset] = parsed_.initializers[k];
      const auto index = static_cast<int32_t>(k);
      const auto it = names_.find(tensor.name);
      if (it != names_.end()) {
        // Before IR version 4 initializers were also listed as inputs; the first becomes the input's default.
        ir::Value& v = g.values[static_cast<size_t>(it->second)];
        if (v.source != Source::Input || v.initializer >= 0) {
          fail("value '" + tensor.name + "' is defined more than once", offset,
               indexed(env_, parsed_.field_path, "initializer", k));
        }
        v.initializer = index;
      } else {
        const int32_t id = define(tensor.name, Source::Initializer, offset,
                                  [&] { return indexed(env_, parsed_.field_path, "initializer", k); });
        g.values[static_cast<size_t>(id)].initializer = index;
      }
    }
    for (size_t k = 0; k < parsed_.sparse_initializers.size(); ++k) {
      const auto& [sparse, offset] = parsed_.sparse_initializers[k];
      const int32_t id = define(sparse.values.name, Source::SparseInitializer, offset,
                                [&] { return indexed(env_, parsed_.field_path, "sparse_initializer", k); });
      g.values[static_cast<size_t>(id)].sparse_initializer = static_cast<int32_t>(k);
    }
    for (ParsedNode& pn : parsed_.nodes) {
      for (const std::string& name : pn.outputs) {
        if (name.empty()) continue;  // an omitted optional output
        if (names_.count(name)) {
          fail(node_label(pn.node) + " defines '" + name + "', which is already defined", pn.offset,
               pn.node.field_path);
        }
        const int32_t id = define(name, Source::NodeOutput, pn.offset, [&] { return pn.node.field_path; });
        g.values[static_cast<size_t>(id)].producer = pn.node.file_index;
      }
    }
  }

  // Graph outputs, then types: declarations first, value_info for values that still have none. Done before
  // the nodes so that subgraphs copy final types into their captures.
  void resolve_outputs_and_types() {
    ir::Graph& g = *graph_;
    for (size_t k = 0; k < parsed_.outputs.size(); ++k) {
      ParsedValueInfo& out = parsed_.outputs[k];
      const int32_t id = out.name.empty() ? -1 : lookup(out.name);
      if (id < 0) {
        fail("graph output '" + out.name + "' is not defined", out.offset,
             indexed(env_, parsed_.field_path, "output", k));
      }
      g.outputs.push_back(id);
      ir::Type& type = g.values[static_cast<size_t>(id)].type;
      if (type.kind == ir::Type::Kind::None) type = std::move(out.type);
    }
    for (ParsedValueInfo& info : parsed_.value_info) {
      const auto it = names_.find(info.name);
      if (it == names_.end()) continue;
      ir::Value& v = g.values[static_cast<size_t>(it->second)];
      if (v.source != Source::Outer && v.type.kind == ir::Type::Kind::None) v.type = std::move(info.type);
    }
  }

  // Node inputs and subgraphs, in file order. Records per node every value it reads (read_begin_/reads_).
  void resolve_nodes() {
    ir::Graph& g = *graph_;
    g.nodes.reserve(parsed_.nodes.size());
    for (ParsedNode& pn : parsed_.nodes) {
      read_begin_.push_back(static_cast<int32_t>(reads_.size()));
      ir::Node node = std::move(pn.node);
      for (size_t k = 0; k < pn.inputs.size(); ++k) {
        const std::string& name = pn.inputs[k];
        if (name.empty()) {  // an omitted optional input
          node.inputs.push_back(-1);
          continue;
        }
        const int32_t id = lookup(name);
        if (id < 0) {
          fail(node_label(node) + " reads '" + name + "', which is not defined", pn.offset,
               indexed(env_, node.field_path, "input", k));
        }
        node.inputs.push_back(id);
        reads_.push_back(id);
      }
      for (const std::string& name : pn.outputs) node.outputs.push_back(name.empty() ? -1 : names_.at(name));
      node.opset = opset_of(node, env_, pn.offset);
      for (ParsedAttribute& pa : pn.attributes) {
        node.attributes.push_back(resolve_attribute(pa, env_, this, reads_));
      }
      g.nodes.push_back(std::move(node));
    }
    read_begin_.push_back(static_cast<int32_t>(reads_.size()));
  }

  std::span<const int32_t> reads_of(size_t file_index) const {
    return std::span<const int32_t>(reads_).subspan(
        static_cast<size_t>(read_begin_[file_index]),
        static_cast<size_t>(read_begin_[file_index + 1] - read_begin_[file_index]));
  }

  int32_t producer_of(int32_t value) const {
    const ir::Value& v = graph_->values[static_cast<size_t>(value)];
    return v.source == Source::NodeOutput ? v.producer : -1;
  }

  // Keeps file order when it is topological; otherwise repeatedly takes the ready node with the smallest file
  // index.
  void order_nodes() {
    ir::Graph& g = *graph_;
    const size_t n = g.nodes.size();
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) order_[i] = static_cast<int32_t>(i);
    bool topological = true;
    for (size_t i = 0; i < n && topological; ++i) {
      for (int32_t v : reads_of(i)) topological = topological && producer_of(v) < static_cast<int32_t>(i);
    }
    if (topological) return;

    std::vector<int32_t> pending(n, 0);
    std::vector<std::vector<int32_t>> dependents(n);
    for (size_t i = 0; i < n; ++i) {
      for (int32_t v : reads_of(i)) {
        const int32_t p = producer_of(v);
        if (p < 0) continue;
        ++pending[i];
        dependents[static_cast<size_t>(p)].push_back(static_cast<int32_t>(i));
      }
    }
    std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] == 0) ready.push(static_cast<int32_t>(i));
    }
    size_t taken = 0;
    while (!ready.empty()) {
      const int32_t i = ready.top();
      ready.pop();
      order_[taken++] = i;
      for (int32_t d : dependents[static_cast<size_t>(i)]) {
        if (--pending[static_cast<size_t>(d)] == 0) ready.push(d);
      }
    }
    if (taken < n) report_cycle(pending);
    std::vector<ir::Node> sorted;
    sorted.reserve(n);
    std::vector<int32_t> position(n);
    for (size_t k = 0; k < n; ++k) {
      position[static_cast<size_t>(order_[k])] = static_cast<int32_t>(k);
      sorted.push_back(std::move(g.nodes[static_cast<size_t>(order_[k])]));
    }
    g.nodes = std::move(sorted);
    for (ir::Value& v : g.values) {
      if (v.source == Source::NodeOutput) v.producer = position[static_cast<size_t>(v.producer)];
    }
    g.nodes_were_reordered = true;
  }

  // Some node never became ready. Walking from one such node to an unready producer of what it reads must
  // revisit a node, and that node lies on a cycle: name it.
  [[noreturn]] void report_cycle(const std::vector<int32_t>& pending) const {
    const size_t n = pending.size();
    size_t at = 0;
    while (pending[at] == 0) ++at;
    std::vector<bool> seen(n, false);
    while (!seen[at]) {
      seen[at] = true;
      for (int32_t v : reads_of(at)) {
        const int32_t p = producer_of(v);
        if (p >= 0 && pending[static_cast<size_t>(p)] > 0) {
          at = static_cast<size_t>(p);
          break;
        }
      }
    }
    const ir::Node& node = graph_->nodes[at];
    fail(node_label(node) + " is part of a cycle", parsed_.nodes[at].offset, node.field_path);
  }

  void collect_consumers() {
    ir::Graph& g = *graph_;
    g.consumers.assign(g.values.size(), {});
    for (size_t k = 0; k < order_.size(); ++k) {
      const auto node = static_cast<int32_t>(k);
      for (int32_t v : reads_of(static_cast<size_t>(order_[k]))) {
        auto& list = g.consumers[static_cast<size_t>(v)];
        if (list.empty() || list.back() != node) list.push_back(node);
      }
    }
  }

  ParsedGraph& parsed_;
  const ResolveEnv& env_;
  GraphResolver* parent_;
  std::shared_ptr<ir::Graph> graph_;
  // Keys view names inside the parsed graphs, which outlive every resolver.
  std::unordered_map<std::string_view, int32_t> names_;
  // Per node in file order, the values it reads (its subgraphs' reads included): reads_[read_begin_[i]...].
  std::vector<int32_t> read_begin_, reads_;
  std::vector<int32_t> order_;  // file indices in execution order
};

std::shared_ptr<ir::Graph> resolve_subgraph(ParsedGraph& parsed, const ResolveEnv& env, GraphResolver* scope,
                                            std::vector<int32_t>& reads) {
  GraphResolver resolver(parsed, env, scope);
  std::shared_ptr<ir::Graph> g = resolver.run();
  for (int32_t c : g->captures) {
    const int32_t outer = g->values[static_cast<size_t>(c)].outer;
    if (outer >= 0) reads.push_back(outer);
  }
  return g;
}

ir::Attribute resolve_attribute(ParsedAttribute& pa, const ResolveEnv& env, GraphResolver* scope,
                                std::vector<int32_t>& reads) {
  ir::Attribute a = std::move(pa.attr);
  if (pa.g) a.g = resolve_subgraph(*pa.g, env, scope, reads);
  for (auto& sub : pa.graphs) a.graphs.push_back(resolve_subgraph(*sub, env, scope, reads));
  return a;
}

}  // namespace

std::shared_ptr<ir::Graph> resolve_graph(ParsedGraph& parsed, const ResolveEnv& env) {
  return GraphResolver(parsed, env, nullptr).run();
}

ir::Node resolve_body_node(ParsedNode& parsed, const ResolveEnv& env) {
  ir::Node node = std::move(parsed.node);
  node.opset = opset_of(node, env, parsed.offset);
  std::vector<int32_t> unused_reads;
  for (ParsedAttribute& pa : parsed.attributes) {
    node.attributes.push_back(resolve_attribute(pa, env, nullptr, unused_reads));
  }
  return node;
}

ir::Attribute resolve_body_attribute(ParsedAttribute& parsed, const ResolveEnv& env) {
  std::vector<int32_t> unused_reads;
  return resolve_attribute(parsed, env, nullptr, unused_reads);
}

}  // namespace onemodel::onnx

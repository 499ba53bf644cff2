// Graph resolution (onnx-import.md §4): names become value ids, subgraphs see their enclosing scopes, nodes
// get their opset and a topological order, and every value learns its consumers.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "ir/ir.h"
#include "onnx/messages.h"

namespace onemodel::onnx {

struct ResolveEnv {
  const std::string& input_name;
  const std::map<std::string, int64_t>& opsets;  // "" is the default domain
  // Function bodies are not resolved: names nobody defines and domains nobody imports are kept, not refused.
  bool lenient = false;
  // Error paths name repeated fields as the .onemodel manifest does ("inputs", "initializers") instead of as
  // ONNX does ("input", "initializer").
  bool manifest_paths = false;
};

// Resolves a top-level graph. Leaves `parsed` in an unspecified state.
std::shared_ptr<ir::Graph> resolve_graph(ParsedGraph& parsed, const ResolveEnv& env);

// A function body node (inputs and outputs stay names) and a function's attribute default. Graphs inside them
// are resolved leniently, each as if it had no enclosing graph.
ir::Node resolve_body_node(ParsedNode& parsed, const ResolveEnv& env);
ir::Attribute resolve_body_attribute(ParsedAttribute& parsed, const ResolveEnv& env);

}  // namespace onemodel::onnx

// The in-memory model every front end produces (ONNX now, .onemodel later). Tensor bytes are views into storage
// kept alive by `IrModel::storage` (the caller's bytes, a file read, a mapping, or converted typed-field data).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace onemodel::ir {

struct Graph;

// Little-endian element bytes in the raw_data layout; `elem_type` is the ONNX code (may be a type we do not store).
struct TensorData {
  std::string name;
  int32_t elem_type = 0;
  std::vector<int64_t> dims;
  std::span<const std::byte> bytes;   // view; empty for strings
  std::vector<std::string> strings;   // elem_type 8 only
  int64_t count() const;
};

struct SparseTensorData {
  TensorData values, indices;
  std::vector<int64_t> dims;
};

struct Dim {
  int64_t value = -1;  // -1: not a fixed extent
  std::string param;   // symbolic name, may be empty
};

struct Type {
  enum class Kind { None, Tensor, Sequence, Map, Optional, SparseTensor, Opaque };
  Kind kind = Kind::None;
  int32_t elem_type = 0;        // tensor / sparse tensor element type (0 = unknown)
  bool has_shape = false;       // tensor: false means unknown rank
  std::vector<Dim> dims;
  std::shared_ptr<Type> inner;  // sequence / optional element type, map value type
  int32_t map_key_type = 0;
  std::string opaque_domain, opaque_name;  // opaque types only
};

enum class AttrType {
  Undefined = 0, Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5, Floats = 6, Ints = 7, Strings = 8,
  Tensors = 9, Graphs = 10, SparseTensor = 11, SparseTensors = 12, TypeProto = 13, TypeProtos = 14,
};

struct Attribute {
  std::string name;
  AttrType type = AttrType::Undefined;
  std::string ref_attr_name;  // function bodies: refers to an attribute of the caller, carries no value
  float f = 0;
  int64_t i = 0;
  std::string s;  // bytes, not necessarily UTF-8
  // The single-value kinds other than numbers and strings are rare; boxed, they keep an attribute small (the
  // imported graph is a large part of the load-time memory of a model with many small nodes). Never modified
  // once read.
  std::shared_ptr<const TensorData> t;
  std::shared_ptr<Graph> g;
  std::shared_ptr<const SparseTensorData> sparse_tensor;
  std::shared_ptr<const Type> tp;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<TensorData> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::vector<SparseTensorData> sparse_tensors;
  std::vector<Type> type_protos;
};

// Value ids are indices into Graph::values of the graph that uses them; -1 marks an omitted optional input.
struct Node {
  std::string name, op_type, domain;  // domain "" also stands for "ai.onnx"
  std::string overload;
  int64_t opset = 0;
  std::vector<int32_t> inputs, outputs;
  std::vector<Attribute> attributes;
  int32_t file_index = 0;  // position in the file, for messages and stable ordering
  std::string field_path;  // "ModelProto.graph.node[3]"
  const Attribute* find(std::string_view attr) const;
};

struct Value {
  enum class Source { Input, Initializer, SparseInitializer, NodeOutput, Outer };
  std::string name;
  Source source = Source::NodeOutput;
  Type type;
  int32_t initializer = -1;         // index into Graph::initializers (Input with a default, or Initializer)
  int32_t sparse_initializer = -1;  // index into Graph::sparse_initializers
  int32_t producer = -1;            // index into Graph::nodes
  int32_t outer = -1;               // Source::Outer: id of the value in the parent graph
};

struct Graph {
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;           // in topological order
  std::vector<int32_t> inputs;       // graph inputs (including those with a default initializer)
  std::vector<int32_t> outputs;
  std::vector<TensorData> initializers;
  std::vector<SparseTensorData> sparse_initializers;
  std::vector<int32_t> captures;     // values of enclosing graphs read here or in nested graphs (local Outer ids)
  std::vector<std::vector<int32_t>> consumers;  // per value: reading nodes in order, each once
  bool nodes_were_reordered = false;
  int32_t find_value(std::string_view name) const;  // -1 when absent
};

struct Function {
  std::string name, domain, overload;
  std::vector<std::string> inputs, outputs, attributes;
  std::vector<Attribute> attribute_defaults;
  struct BodyNode {
    Node node;  // inputs/outputs ids unused: bodies are not resolved
    std::vector<std::string> input_names, output_names;
  };
  std::vector<BodyNode> nodes;
  std::map<std::string, int64_t> opsets;
};

struct Model {
  int64_t ir_version = 0;
  std::string producer_name, producer_version, domain, doc_string;
  int64_t model_version = 0;
  std::map<std::string, int64_t> opsets;  // "" for ai.onnx
  std::map<std::string, std::string> metadata;
  std::shared_ptr<Graph> graph;
  std::vector<Function> functions;
  std::vector<std::shared_ptr<const void>> storage;  // keeps tensor bytes alive
};

}  // namespace onemodel::ir

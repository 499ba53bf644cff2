// Readers of the individual ONNX messages (onnx-import.md §2–3) and the parsed form of a graph before
// resolution. Each reader takes the payload of one message; the caller has already entered its nesting level
// (see Nested) and passes the position of the message's key for error offsets.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "onnx/read_context.h"

namespace onemodel::onnx {

struct ParsedGraph;

// An attribute plus the graphs it holds, which are resolved later (they need the enclosing graph's names).
struct ParsedAttribute {
  ir::Attribute attr;  // g and graphs stay empty until resolution
  std::unique_ptr<ParsedGraph> g;
  std::vector<std::unique_ptr<ParsedGraph>> graphs;
};

struct ParsedNode {
  ir::Node node;  // everything but inputs, outputs, opset and attributes
  std::vector<std::string> inputs, outputs;
  std::vector<ParsedAttribute> attributes;
  int64_t offset = -1;
};

struct ParsedValueInfo {
  std::string name;
  ir::Type type;
  int64_t offset = -1;
};

template <class T>
struct Located {
  T value;
  int64_t offset = -1;
};

struct ParsedGraph {
  std::string name;
  std::string field_path;  // "ModelProto.graph", "...node[2].attribute[0].g"
  std::vector<ParsedNode> nodes;
  std::vector<ParsedValueInfo> inputs, outputs, value_info;
  std::vector<Located<ir::TensorData>> initializers;
  std::vector<Located<ir::SparseTensorData>> sparse_initializers;
};

// The occurrence number of the next element of a repeated field holding `n`, for field paths.
inline int64_t count_of(size_t n) {
  return static_cast<int64_t>(n);
}

// Bits per element of a TensorProto.DataType code (§3): 0 for strings, -1 for codes this importer does not
// know.
int element_bits(int32_t code);

ir::TensorData read_tensor(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset);
ir::SparseTensorData read_sparse_tensor(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset);
ParsedGraph read_graph(ReadContext& rc, std::span<const std::byte> bytes);
ParsedNode read_node(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset, int32_t file_index);
ParsedAttribute read_attribute(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset);
ir::Type read_type(ReadContext& rc, std::span<const std::byte> bytes);
// StringStringEntryProto (metadata_props, external_data).
std::pair<std::string, std::string> read_string_entry(ReadContext& rc, std::span<const std::byte> bytes);
// OperatorSetIdProto; the domain "ai.onnx" is returned as "".
std::pair<std::string, int64_t> read_opset(ReadContext& rc, std::span<const std::byte> bytes);

}  // namespace onemodel::onnx

// Entry points of the ONNX importer, ModelProto and FunctionProto. Reading parses the whole model first (so
// every byte is checked before any resolution error is reported), then resolution builds the graphs.
#include "onnx/onnx_reader.h"

#include "format/file_bytes.h"
#include "format/format.h"
#include "onnx/messages.h"
#include "onnx/resolve.h"

namespace onemodel::onnx {

namespace {

using Kind = ImportError::Kind;

struct ParsedFunction {
  ir::Function fn;  // everything but the body nodes and attribute defaults
  std::vector<ParsedNode> nodes;
  std::vector<ParsedAttribute> attribute_defaults;
};

struct ParsedModel {
  ir::Model model;  // scalar fields, opsets and metadata
  int64_t ir_version_offset = -1;
  std::unique_ptr<ParsedGraph> graph;
  std::vector<ParsedFunction> functions;
};

ParsedFunction read_function(ReadContext& rc, std::span<const std::byte> bytes) {
  ParsedFunction pf;
  ir::Function& fn = pf.fn;
  WireContext& wire = rc.wire;
  MessageReader reader(wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.wire != Wire::Len) continue;  // every FunctionProto field read here is length-delimited
    switch (f.number) {
      case 1:
        fn.name = read_string(wire, f, "name");
        break;
      case 4:
        fn.inputs.push_back(read_string(wire, f, "input", count_of(fn.inputs.size())));
        break;
      case 5:
        fn.outputs.push_back(read_string(wire, f, "output", count_of(fn.outputs.size())));
        break;
      case 6:
        fn.attributes.push_back(read_string(wire, f, "attribute", count_of(fn.attributes.size())));
        break;
      case 7: {
        const auto index = static_cast<int32_t>(pf.nodes.size());
        Nested scope(wire, "node", index, f.offset);
        pf.nodes.push_back(read_node(rc, f.bytes, f.offset, index));
        break;
      }
      case 8:
        read_string(wire, f, "doc_string");
        break;
      case 9: {
        Nested scope(wire, "opset_import", count_of(fn.opsets.size()), f.offset);
        auto [domain, version] = read_opset(rc, f.bytes);
        fn.opsets[std::move(domain)] = version;
        break;
      }
      case 10:
        fn.domain = read_string(wire, f, "domain");
        break;
      case 11: {
        Nested scope(wire, "attribute_proto", count_of(pf.attribute_defaults.size()), f.offset);
        pf.attribute_defaults.push_back(read_attribute(rc, f.bytes, f.offset));
        break;
      }
      case 13:
        fn.overload = read_string(wire, f, "overload");
        break;
      default:
        break;
    }
  }
  return pf;
}

ParsedModel read_model(ReadContext& rc, std::span<const std::byte> bytes) {
  ParsedModel pm;
  ir::Model& m = pm.model;
  WireContext& wire = rc.wire;
  MessageReader reader(wire, bytes);
  Field f;
  int64_t opset_index = 0, metadata_index = 0;
  while (reader.next(f)) {
    if (f.wire == Wire::Varint) {
      if (f.number == 1) {
        m.ir_version = f.as_int64();
        pm.ir_version_offset = f.offset;
      } else if (f.number == 5) {
        m.model_version = f.as_int64();
      }
      continue;
    }
    if (f.wire != Wire::Len) continue;
    switch (f.number) {
      case 2:
        m.producer_name = read_string(wire, f, "producer_name");
        break;
      case 3:
        m.producer_version = read_string(wire, f, "producer_version");
        break;
      case 4:
        m.domain = read_string(wire, f, "domain");
        break;
      case 6:
        m.doc_string = read_string(wire, f, "doc_string");
        break;
      case 7: {
        Nested scope(wire, "graph", -1, f.offset);
        pm.graph = std::make_unique<ParsedGraph>(read_graph(rc, f.bytes));
        break;
      }
      case 8: {
        Nested scope(wire, "opset_import", opset_index++, f.offset);
        auto [domain, version] = read_opset(rc, f.bytes);
        m.opsets[std::move(domain)] = version;
        break;
      }
      case 14: {
        Nested scope(wire, "metadata_props", metadata_index++, f.offset);
        auto [key, value] = read_string_entry(rc, f.bytes);
        m.metadata[std::move(key)] = std::move(value);
        break;
      }
      case 25: {
        Nested scope(wire, "functions", count_of(pm.functions.size()), f.offset);
        pm.functions.push_back(read_function(rc, f.bytes));
        break;
      }
      default:
        break;
    }
  }
  return pm;
}

ir::Function resolve_function(ParsedFunction& pf, const std::string& input_name) {
  ir::Function fn = std::move(pf.fn);
  const ResolveEnv env{input_name, fn.opsets, /*lenient=*/true};
  for (ParsedNode& pn : pf.nodes) {
    ir::Function::BodyNode body;
    body.node = resolve_body_node(pn, env);
    body.input_names = std::move(pn.inputs);
    body.output_names = std::move(pn.outputs);
    fn.nodes.push_back(std::move(body));
  }
  for (ParsedAttribute& pa : pf.attribute_defaults) {
    fn.attribute_defaults.push_back(resolve_body_attribute(pa, env));
  }
  return fn;
}

void check_size(uint64_t size, const std::string& input_name, const char* root) {
  if (size > static_cast<uint64_t>(kMaxInputBytes)) {
    throw ImportError(
        Kind::Unsupported,
        "input of " + std::to_string(size) + " bytes exceeds the protobuf limit of 2^31-1 bytes", input_name,
        -1, root);
  }
}

}  // namespace

ir::Model import_model(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                       const ImportOptions& options) {
  // The size is checked before any byte is read; files bigger than that come through import_model_file.
  check_size(bytes.size(), options.input_name, "ModelProto");
  if (format::is_onemodel(bytes)) return format::read_model(bytes, std::move(owner), options.input_name);
  std::vector<std::shared_ptr<const void>> storage{std::move(owner)};
  ExternalFiles external{options.external_data_dir, {}};
  ReadContext rc{WireContext(bytes, options.input_name, "ModelProto", options.max_nesting), storage,
                 &external};
  ParsedModel pm = read_model(rc, bytes);

  ir::Model& m = pm.model;
  if (pm.ir_version_offset < 0) rc.wire.fail(Kind::InvalidModel, "ir_version is missing", -1, "ir_version");
  if (m.ir_version < 3) {
    rc.wire.fail(Kind::InvalidModel, "ir_version " + std::to_string(m.ir_version) + " is older than 3",
                 pm.ir_version_offset, "ir_version");
  }
  if (!pm.graph) rc.wire.fail(Kind::InvalidModel, "the model has no graph", -1, "graph");

  m.graph = resolve_graph(*pm.graph, ResolveEnv{options.input_name, m.opsets});
  for (ParsedFunction& pf : pm.functions) m.functions.push_back(resolve_function(pf, options.input_name));
  m.storage = std::move(storage);
  return std::move(m);
}

ir::Model import_model_file(const std::filesystem::path& path, ImportOptions options) {
  options.input_name = path.string();
  if (options.external_data_dir.empty()) {
    options.external_data_dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  }
  format::FileBytes file = format::load_file(path, options.input_name);
  // A .onemodel file is not bound by protobuf's 2 GiB limit.
  if (format::is_onemodel(file.bytes))
    return format::read_model(file.bytes, std::move(file.owner), options.input_name);
  return import_model(file.bytes, std::move(file.owner), options);
}

ir::TensorData import_tensor(std::span<const std::byte> bytes,
                             std::vector<std::shared_ptr<const void>>& storage,
                             const ImportOptions& options) {
  check_size(bytes.size(), options.input_name, "TensorProto");
  ReadContext rc{WireContext(bytes, options.input_name, "TensorProto", options.max_nesting), storage};
  return read_tensor(rc, bytes, 0);
}

}  // namespace onemodel::onnx

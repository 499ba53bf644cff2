// The importer's view of every backend test model, written as the structural dump of tools/onnx_dump.py, must
// equal the dump that script writes with the onnx Python package (onnx-import.md §8).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "core/sha256.h"
#include "onnx/onnx_reader.h"
#include "onnx/testdata_support.h"

namespace onemodel::test {
namespace {

using Lines = std::vector<std::string>;

template <class T, class F>
std::string join(const std::vector<T>& items, F&& to_text) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + to_text(items[i]);
  return out;
}

std::string dims_str(const std::vector<int64_t>& dims) {
  return "[" + join(dims, [](int64_t d) { return std::to_string(d); }) + "]";
}

std::string float_bits(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", __builtin_bit_cast(uint32_t, f));
  return buf;
}

std::string hex(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

std::string type_str(const ir::Type& t) {
  using K = ir::Type::Kind;
  const auto inner = [&] { return t.inner ? type_str(*t.inner) : std::string("null"); };
  switch (t.kind) {
    case K::None:
      return "none";
    case K::Tensor:
    case K::SparseTensor: {
      std::string dims = "?";
      if (t.has_shape) {
        dims = "[" +
               join(t.dims,
                    [](const ir::Dim& d) {
                      return d.value >= 0      ? std::to_string(d.value)
                             : d.param.empty() ? std::string("?")
                                               : d.param;
                    }) +
               "]";
      }
      return std::string(t.kind == K::Tensor ? "tensor(" : "sparse(") + std::to_string(t.elem_type) + "," +
             dims + ")";
    }
    case K::Sequence:
      return "seq(" + inner() + ")";
    case K::Optional:
      return "opt(" + inner() + ")";
    case K::Map:
      return "map(" + std::to_string(t.map_key_type) + "," + inner() + ")";
    case K::Opaque:
      return "opaque";
  }
  return "?";
}

std::string tensor_str(const ir::TensorData& t) {
  std::string head = std::to_string(t.elem_type) + dims_str(t.dims);
  if (t.elem_type != 8) return head + " sha256=" + sha256_hex(t.bytes);
  Sha256 h;
  for (const std::string& s : t.strings) {
    uint8_t length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(uint64_t{s.size()} >> (8 * i));
    h.update(length, 8);
    h.update(s.data(), s.size());
  }
  return head + " strings=" + std::to_string(t.strings.size()) + " sha256=" + h.hex();
}

std::string sparse_str(const ir::SparseTensorData& s) {
  return "values=" + tensor_str(s.values) + " indices=" + tensor_str(s.indices) + " dims=" + dims_str(s.dims);
}

void dump_graph(const ir::Graph& g, const std::string& ind, Lines& out);

void dump_attr(const ir::Attribute& a, const std::string& ind, Lines& out) {
  using T = ir::AttrType;
  const std::string head = ind + "attr " + a.name + " " + std::to_string(static_cast<int>(a.type)) + " ";
  if (!a.ref_attr_name.empty()) return out.push_back(head + "ref=" + a.ref_attr_name);
  switch (a.type) {
    case T::Float:
      return out.push_back(head + float_bits(a.f));
    case T::Int:
      return out.push_back(head + std::to_string(a.i));
    case T::String:
      return out.push_back(head + hex(a.s));
    case T::Tensor:
      return out.push_back(head + tensor_str(*a.t));
    case T::Graph:
      out.push_back(head + "graph");
      return dump_graph(*a.g, ind + "  ", out);
    case T::Floats:
      return out.push_back(head + "[" + join(a.floats, float_bits) + "]");
    case T::Ints:
      return out.push_back(head + "[" + join(a.ints, [](int64_t i) { return std::to_string(i); }) + "]");
    case T::Strings:
      return out.push_back(head + "[" + join(a.strings, hex) + "]");
    case T::Tensors:
      out.push_back(head + "tensors=" + std::to_string(a.tensors.size()));
      for (const auto& t : a.tensors) out.push_back(ind + "  tensor " + tensor_str(t));
      return;
    case T::Graphs:
      out.push_back(head + "graphs=" + std::to_string(a.graphs.size()));
      for (const auto& sub : a.graphs) dump_graph(*sub, ind + "  ", out);
      return;
    case T::SparseTensor:
      return out.push_back(head + sparse_str(*a.sparse_tensor));
    case T::SparseTensors:
      out.push_back(head + "sparse_tensors=" + std::to_string(a.sparse_tensors.size()));
      for (const auto& s : a.sparse_tensors) out.push_back(ind + "  sparse " + sparse_str(s));
      return;
    case T::TypeProto:
      return out.push_back(head + type_str(*a.tp));
    case T::TypeProtos:
      return out.push_back(head + "[" + join(a.type_protos, type_str) + "]");
    case T::Undefined:
      return out.push_back(head);
  }
}

void dump_node(const ir::Node& n, const Lines& inputs, const Lines& outputs, const std::string& ind,
               Lines& out) {
  const auto same = [](const std::string& s) { return s; };
  out.push_back(ind + "node #" + std::to_string(n.file_index) + " name=" + n.name + " op=" + n.domain + ":" +
                n.op_type + " overload=" + n.overload + " opset=" + std::to_string(n.opset) + " in=[" +
                join(inputs, same) + "] out=[" + join(outputs, same) + "]");
  for (const ir::Attribute& a : n.attributes) dump_attr(a, ind + "  ", out);
}

const char* source_name(const ir::Value& v) {
  switch (v.source) {
    case ir::Value::Source::Input:
      return v.initializer >= 0 ? "input-default" : "input";
    case ir::Value::Source::Initializer:
      return "initializer";
    case ir::Value::Source::SparseInitializer:
      return "sparse";
    default:
      return "node";
  }
}

void dump_graph(const ir::Graph& g, const std::string& ind, Lines& out) {
  const std::string ind2 = ind + "  ";
  const auto name_of = [&](int32_t id) {
    return id < 0 ? std::string() : g.values[static_cast<size_t>(id)].name;
  };
  out.push_back(ind + "graph " + g.name);
  for (int32_t id : g.inputs) out.push_back(ind2 + "input " + name_of(id));
  for (const auto& t : g.initializers) out.push_back(ind2 + "init " + t.name + " " + tensor_str(t));
  for (const auto& s : g.sparse_initializers) {
    out.push_back(ind2 + "sparse " + s.values.name + " " + sparse_str(s));
  }
  std::vector<const ir::Node*> in_file_order(g.nodes.size());
  for (const ir::Node& n : g.nodes) in_file_order[static_cast<size_t>(n.file_index)] = &n;
  for (const ir::Node* n : in_file_order) {
    Lines inputs, outputs;
    for (int32_t id : n->inputs) inputs.push_back(name_of(id));
    for (int32_t id : n->outputs) outputs.push_back(name_of(id));
    dump_node(*n, inputs, outputs, ind2, out);
  }
  for (int32_t id : g.outputs) out.push_back(ind2 + "output " + name_of(id));
  for (const ir::Value& v : g.values) {
    if (v.source != ir::Value::Source::Outer) {
      out.push_back(ind2 + "value " + v.name + " " + source_name(v) + " " + type_str(v.type));
    }
  }
}

void dump_opsets(const std::map<std::string, int64_t>& opsets, const std::string& ind, Lines& out) {
  for (const auto& [domain, version] : opsets) {
    out.push_back(ind + "opset " + (domain.empty() ? "ai.onnx" : domain) + "=" + std::to_string(version));
  }
}

Lines dump_model(const ir::Model& m) {
  Lines out{"model ir_version=" + std::to_string(m.ir_version) + " producer=" + m.producer_name + " " +
            m.producer_version + " domain=" + m.domain + " model_version=" + std::to_string(m.model_version)};
  dump_opsets(m.opsets, "", out);
  for (const auto& [k, v] : m.metadata) out.push_back("meta " + k + "=" + v);
  dump_graph(*m.graph, "", out);
  const auto same = [](const std::string& s) { return s; };
  for (const ir::Function& f : m.functions) {
    out.push_back("function " + f.domain + ":" + f.name + " overload=" + f.overload + " in=[" +
                  join(f.inputs, same) + "] out=[" + join(f.outputs, same) + "] attrs=[" +
                  join(f.attributes, same) + "]");
    dump_opsets(f.opsets, "  ", out);
    for (const ir::Attribute& a : f.attribute_defaults) dump_attr(a, "  ", out);
    for (const auto& body : f.nodes) dump_node(body.node, body.input_names, body.output_names, "  ", out);
  }
  return out;
}

// Runs the Python dump over `models`; returns the lines per model path.
std::map<std::string, Lines> python_dumps(const std::vector<std::filesystem::path>& models) {
  std::string command = "/usr/bin/python3 " ONEMODEL_SOURCE_DIR "/tools/onnx_dump.py";
  for (const auto& p : models) command += " '" + p.string() + "'";
  std::map<std::string, Lines> dumps;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return dumps;
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
  pclose(pipe);
  std::istringstream in(text);
  Lines* current = nullptr;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("== ", 0) == 0) {
      current = &dumps[line.substr(3)];
    } else if (current) {
      current->push_back(line);
    }
  }
  return dumps;
}

TEST(OnnxDump, MatchesTheOnnxPythonPackage) {
  if (std::system("/usr/bin/python3 -c 'import onnx, numpy' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "NOT RUN: /usr/bin/python3 with the onnx and numpy packages (Debian python3-onnx, "
                    "python3-numpy) is missing, so the importer was not compared with the onnx package";
  }
  const auto models = onnx_testdata_models();
  if (models.empty()) GTEST_SKIP() << "NOT RUN: ONNX backend test data missing at " << kOnnxTestdata;
  const auto expected = python_dumps(models);
  ASSERT_EQ(expected.size(), models.size()) << "tools/onnx_dump.py did not dump every model";
  size_t compared = 0;
  for (const auto& path : models) {
    const Lines ours = dump_model(onnx::import_model_file(path));
    const Lines& theirs = expected.at(path.string());
    const size_t n = std::min(ours.size(), theirs.size());
    size_t first_difference = n;
    for (size_t i = 0; i < n && first_difference == n; ++i) {
      if (ours[i] != theirs[i]) first_difference = i;
    }
    if (first_difference == n && ours.size() == theirs.size()) {
      ++compared;
      continue;
    }
    ADD_FAILURE() << path << " line " << first_difference
                  << "\n  ours:   " << (first_difference < ours.size() ? ours[first_difference] : "<end>")
                  << "\n  python: "
                  << (first_difference < theirs.size() ? theirs[first_difference] : "<end>");
  }
  EXPECT_EQ(compared, models.size());
  std::printf("[ info     ] %zu models match the onnx package's dump\n", compared);
}

}  // namespace
}  // namespace onemodel::test

// The writer of format.md §4: one pass places the tensors (§1.3 order), then the manifest is written in the
// field order of §2's tables, then header, padding and data.
#include <cstring>
#include <unordered_map>

#include "format/base64.h"
#include "format/format.h"
#include "format/json.h"
#include "onnx/messages.h"

namespace onemodel::format {

namespace {

using Kind = ImportError::Kind;
constexpr int32_t kStringType = 8;

uint64_t align64(uint64_t n) {
  return (n + 63) & ~uint64_t{63};
}

struct Range {
  int64_t offset = 0, length = 0;
};

class Writer {
 public:
  std::vector<std::byte> write(const ir::Model& m) {
    place_graph(*m.graph);
    for (const ir::Function& fn : m.functions) {
      for (const auto& body : fn.nodes) place_attributes(body.node.attributes);
      place_attributes(fn.attribute_defaults);
    }
    write_manifest(m);
    return assemble();
  }

 private:
  // --- placement (format.md §1.3) ---
  void place(const ir::TensorData& t) {
    if (t.elem_type == kStringType) return;
    const int bits = onnx::element_bits(t.elem_type);
    const auto length = static_cast<int64_t>(t.bytes.size());
    if (bits <= 0 || (t.count() * bits + 7) / 8 != length || length > (int64_t{1} << 31) - 1) {
      throw ImportError(Kind::Unsupported,
                        "tensor '" + t.name + "' cannot be stored in the .onemodel format");
    }
    Range r;
    if (length > 0) {
      r.offset = static_cast<int64_t>(align64(static_cast<uint64_t>(cursor_)));
      r.length = length;
      cursor_ = r.offset + length;
    }
    ranges_.emplace(&t, r);
    placed_.push_back(&t);
  }

  void place_sparse(const ir::SparseTensorData& s) {
    place(s.values);
    place(s.indices);
  }

  void place_graph(const ir::Graph& g) {
    for (const auto& t : g.initializers) place(t);
    for (const auto& s : g.sparse_initializers) place_sparse(s);
    for (const ir::Node& n : g.nodes) place_attributes(n.attributes);
  }

  void place_attributes(const std::vector<ir::Attribute>& attributes) {
    for (const ir::Attribute& a : attributes) {
      if (a.t) place(*a.t);
      if (a.g) place_graph(*a.g);
      if (a.sparse_tensor) place_sparse(*a.sparse_tensor);
      for (const auto& t : a.tensors) place(t);
      for (const auto& g : a.graphs) place_graph(*g);
      for (const auto& s : a.sparse_tensors) place_sparse(s);
    }
  }

  // --- manifest (format.md §2) ---
  void field(std::string_view name, std::string_view value) {
    w_.key(name);
    w_.string(value);
  }
  void field(std::string_view name, int64_t value) {
    w_.key(name);
    w_.integer(value);
  }
  void string_array(std::string_view name, const std::vector<std::string>& values) {
    w_.key(name);
    w_.begin_array();
    for (const auto& v : values) w_.string(v);
    w_.end_array();
  }
  void opsets(const std::map<std::string, int64_t>& opsets) {
    w_.key("opsets");
    w_.begin_array();
    for (const auto& [domain, version] : opsets) {
      w_.begin_object();
      field("domain", domain);
      field("version", version);
      w_.end_object();
    }
    w_.end_array();
  }

  void type(const ir::Type& t) {
    using K = ir::Type::Kind;
    w_.begin_object();
    switch (t.kind) {
      case K::Tensor:
      case K::SparseTensor:
        field("kind", t.kind == K::Tensor ? "tensor" : "sparse_tensor");
        field("elem", t.elem_type);
        if (t.has_shape) {
          w_.key("shape");
          w_.begin_array();
          for (const ir::Dim& d : t.dims) {
            if (d.value >= 0) {
              w_.integer(d.value);
            } else if (!d.param.empty()) {
              w_.string(d.param);
            } else {
              w_.null();
            }
          }
          w_.end_array();
        }
        break;
      case K::Sequence:
      case K::Optional:
        field("kind", t.kind == K::Sequence ? "sequence" : "optional");
        inner(t);
        break;
      case K::Map:
        field("kind", "map");
        field("key", t.map_key_type);
        inner(t);
        break;
      case K::Opaque:
        field("kind", "opaque");
        field("domain", t.opaque_domain);
        field("name", t.opaque_name);
        break;
      case K::None:
        break;  // never called: callers omit absent types
    }
    w_.end_object();
  }
  void inner(const ir::Type& t) {
    if (!t.inner || t.inner->kind == ir::Type::Kind::None) return;
    w_.key("inner");
    type(*t.inner);
  }

  void typed_name(const ir::Value& v) {
    w_.begin_object();
    field("name", v.name);
    if (v.type.kind != ir::Type::Kind::None) {
      w_.key("type");
      type(v.type);
    }
    w_.end_object();
  }

  void dims(const std::vector<int64_t>& d) {
    w_.key("dims");
    w_.begin_array();
    for (int64_t x : d) w_.integer(x);
    w_.end_array();
  }

  void tensor(const ir::TensorData& t) {
    w_.begin_object();
    field("name", t.name);
    field("dtype", t.elem_type);
    dims(t.dims);
    if (t.elem_type == kStringType) {
      w_.key("strings");
      w_.begin_array();
      for (const auto& s : t.strings) w_.string(base64_encode(s));
      w_.end_array();
    } else {
      const Range r = ranges_.at(&t);
      w_.key("data");
      w_.begin_object();
      field("offset", r.offset);
      field("length", r.length);
      w_.end_object();
    }
    w_.end_object();
  }

  void sparse(const ir::SparseTensorData& s) {
    w_.begin_object();
    w_.key("values");
    tensor(s.values);
    w_.key("indices");
    tensor(s.indices);
    dims(s.dims);
    w_.end_object();
  }

  void attribute(const ir::Attribute& a) {
    using T = ir::AttrType;
    w_.begin_object();
    field("name", a.name);
    field("type", static_cast<int64_t>(a.type));
    if (!a.ref_attr_name.empty()) {
      field("ref", a.ref_attr_name);
      w_.end_object();
      return;
    }
    w_.key("value");
    switch (a.type) {
      case T::Float:
        w_.integer(float_bits(a.f));
        break;
      case T::Int:
        w_.integer(a.i);
        break;
      case T::String:
        w_.string(base64_encode(a.s));
        break;
      case T::Tensor:
        tensor(*a.t);
        break;
      case T::Graph:
        graph(*a.g);
        break;
      case T::Floats:
        w_.begin_array();
        for (float f : a.floats) w_.integer(float_bits(f));
        w_.end_array();
        break;
      case T::Ints:
        w_.begin_array();
        for (int64_t i : a.ints) w_.integer(i);
        w_.end_array();
        break;
      case T::Strings:
        w_.begin_array();
        for (const auto& s : a.strings) w_.string(base64_encode(s));
        w_.end_array();
        break;
      case T::Tensors:
        w_.begin_array();
        for (const auto& t : a.tensors) tensor(t);
        w_.end_array();
        break;
      case T::Graphs:
        w_.begin_array();
        for (const auto& g : a.graphs) graph(*g);
        w_.end_array();
        break;
      case T::SparseTensor:
        sparse(*a.sparse_tensor);
        break;
      case T::SparseTensors:
        w_.begin_array();
        for (const auto& s : a.sparse_tensors) sparse(s);
        w_.end_array();
        break;
      case T::TypeProto:
        type(*a.tp);
        break;
      case T::TypeProtos:
        w_.begin_array();
        for (const auto& t : a.type_protos) type(t);
        w_.end_array();
        break;
      case T::Undefined:
        throw ImportError(Kind::Unsupported, "attribute '" + a.name + "' has no type");
    }
    w_.end_object();
  }

  static int64_t float_bits(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }

  void node(const ir::Node& n, const std::vector<std::string>& inputs,
            const std::vector<std::string>& outputs) {
    w_.begin_object();
    field("name", n.name);
    field("op", n.op_type);
    field("domain", n.domain);
    field("overload", n.overload);
    string_array("inputs", inputs);
    string_array("outputs", outputs);
    w_.key("attributes");
    w_.begin_array();
    for (const auto& a : n.attributes) attribute(a);
    w_.end_array();
    w_.end_object();
  }

  static std::vector<std::string> names(const ir::Graph& g, const std::vector<int32_t>& ids) {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (int32_t id : ids) out.push_back(id < 0 ? std::string() : g.values[static_cast<size_t>(id)].name);
    return out;
  }

  void graph(const ir::Graph& g) {
    w_.begin_object();
    field("name", g.name);
    w_.key("inputs");
    w_.begin_array();
    for (int32_t id : g.inputs) typed_name(g.values[static_cast<size_t>(id)]);
    w_.end_array();
    w_.key("outputs");
    w_.begin_array();
    for (int32_t id : g.outputs) typed_name(g.values[static_cast<size_t>(id)]);
    w_.end_array();
    // Declared types of every other value this graph defines, in an order that does not depend on how the
    // importer numbered them: initializers and sparse initializers, then node outputs node by node.
    std::vector<bool> listed(g.values.size(), false);
    for (int32_t id : g.inputs) listed[static_cast<size_t>(id)] = true;
    for (int32_t id : g.outputs) listed[static_cast<size_t>(id)] = true;
    std::vector<int32_t> others;
    for (size_t v = 0; v < g.values.size(); ++v) {
      const auto source = g.values[v].source;
      if (source == ir::Value::Source::Initializer || source == ir::Value::Source::SparseInitializer) {
        others.push_back(static_cast<int32_t>(v));
      }
    }
    for (const ir::Node& n : g.nodes) {
      for (int32_t id : n.outputs) {
        if (id >= 0) others.push_back(id);
      }
    }
    w_.key("value_info");
    w_.begin_array();
    for (int32_t id : others) {
      const ir::Value& value = g.values[static_cast<size_t>(id)];
      if (!listed[static_cast<size_t>(id)] && value.type.kind != ir::Type::Kind::None) typed_name(value);
    }
    w_.end_array();
    w_.key("initializers");
    w_.begin_array();
    for (const auto& t : g.initializers) tensor(t);
    w_.end_array();
    w_.key("sparse_initializers");
    w_.begin_array();
    for (const auto& s : g.sparse_initializers) sparse(s);
    w_.end_array();
    w_.key("nodes");
    w_.begin_array();
    for (const ir::Node& n : g.nodes) node(n, names(g, n.inputs), names(g, n.outputs));
    w_.end_array();
    w_.end_object();
  }

  void function(const ir::Function& fn) {
    w_.begin_object();
    field("name", fn.name);
    field("domain", fn.domain);
    field("overload", fn.overload);
    string_array("inputs", fn.inputs);
    string_array("outputs", fn.outputs);
    string_array("attribute_names", fn.attributes);
    w_.key("attribute_defaults");
    w_.begin_array();
    for (const auto& a : fn.attribute_defaults) attribute(a);
    w_.end_array();
    w_.key("nodes");
    w_.begin_array();
    for (const auto& body : fn.nodes) node(body.node, body.input_names, body.output_names);
    w_.end_array();
    opsets(fn.opsets);
    w_.end_object();
  }

  void write_manifest(const ir::Model& m) {
    w_.begin_object();
    field("format", "onemodel");
    field("version", int64_t{kVersion});
    field("ir_version", m.ir_version);
    field("producer_name", m.producer_name);
    field("producer_version", m.producer_version);
    field("domain", m.domain);
    if (!m.doc_string.empty()) field("doc", m.doc_string);
    field("model_version", m.model_version);
    opsets(m.opsets);
    w_.key("metadata");
    w_.begin_array();
    for (const auto& [key, value] : m.metadata) {
      w_.begin_object();
      field("key", key);
      field("value", value);
      w_.end_object();
    }
    w_.end_array();
    w_.key("graph");
    graph(*m.graph);
    w_.key("functions");
    w_.begin_array();
    for (const auto& fn : m.functions) function(fn);
    w_.end_array();
    w_.end_object();
  }

  // --- bytes (format.md §1) ---
  static void put_u32(std::byte* p, uint32_t v) {
    for (int b = 0; b < 4; ++b) p[b] = static_cast<std::byte>(v >> (8 * b));
  }
  static void put_u64(std::byte* p, uint64_t v) {
    for (int b = 0; b < 8; ++b) p[b] = static_cast<std::byte>(v >> (8 * b));
  }

  std::vector<std::byte> assemble() const {
    const std::string& manifest = w_.text();
    const uint64_t data_offset = align64(kHeaderBytes + manifest.size());
    const auto data_length = static_cast<uint64_t>(cursor_);
    std::vector<std::byte> out(data_offset + data_length);  // zero-filled: padding stays zero
    std::byte* p = out.data();
    std::memcpy(p, "ONEMODEL", 8);
    put_u32(p + 8, kVersion);
    put_u32(p + 12, 0);
    put_u64(p + 16, kHeaderBytes);
    put_u64(p + 24, manifest.size());
    put_u64(p + 32, data_offset);
    put_u64(p + 40, data_length);
    put_u64(p + 48, out.size());
    std::memcpy(p + kHeaderBytes, manifest.data(), manifest.size());
    for (const ir::TensorData* t : placed_) {
      const Range r = ranges_.at(t);
      if (r.length > 0)
        std::memcpy(p + data_offset + r.offset, t->bytes.data(), static_cast<size_t>(r.length));
    }
    return out;
  }

  std::unordered_map<const ir::TensorData*, Range> ranges_;
  std::vector<const ir::TensorData*> placed_;
  int64_t cursor_ = 0;
  JsonWriter w_;
};

}  // namespace

bool is_onemodel(std::span<const std::byte> bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data(), "ONEMODEL", 8) == 0;
}

std::vector<std::byte> write_model(const ir::Model& model) {
  return Writer().write(model);
}

}  // namespace onemodel::format

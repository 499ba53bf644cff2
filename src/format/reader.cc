// The reader of format.md §1-3: header checks against the real length, the manifest parsed strictly, every
// tensor range checked in 64 bits, then the same name resolution as an ONNX file (src/onnx/resolve.cc).
#include <cstring>

#include "format/base64.h"
#include "format/format.h"
#include "format/json.h"
#include "onnx/messages.h"
#include "onnx/resolve.h"
#include "onnx/wire.h"

namespace onemodel::format {

namespace {

using Kind = ImportError::Kind;
using JK = JsonKind;
constexpr int32_t kStringType = 8;
constexpr int64_t kMaxElements = int64_t{1} << 60;
constexpr int64_t kMaxTensorBytes = (int64_t{1} << 31) - 1;

// A manifest path such as manifest.graph.nodes[3].inputs[1], spelled out only when an error names it
// (building every field's path as a string took a tenth of a model's load). A Path points at its parent, so
// it lives no longer than the call that made it: pass them down, keep a string (str()) when the path must be
// stored.
class Path {
 public:
  explicit Path(const char* root) : root_(root) {}
  Path(const Path& parent, std::string_view field) : parent_(&parent), field_(field) {}
  Path(const Path& parent, size_t index) : parent_(&parent), index_(index), is_index_(true) {}

  std::string str() const {
    if (!parent_) return root_;
    std::string s = parent_->str();
    if (is_index_) return s + "[" + std::to_string(index_) + "]";
    return s + "." + std::string(field_);
  }

 private:
  const Path* parent_ = nullptr;
  const char* root_ = "";
  std::string_view field_;
  size_t index_ = 0;
  bool is_index_ = false;
};

Path at(const Path& path, std::string_view field) {
  return Path(path, field);
}
Path at(const Path& path, size_t index) {
  return Path(path, index);
}

struct Header {
  uint64_t manifest_length = 0, data_offset = 0, data_length = 0;
};

class Reader {
 public:
  Reader(std::span<const std::byte> bytes, const std::string& input_name)
      : bytes_(bytes), name_(input_name) {}

  ir::Model read(std::shared_ptr<const void> owner) {
    const Header h = read_header();
    data_ = bytes_.subspan(h.data_offset, h.data_length);
    const auto* text = reinterpret_cast<const char*>(bytes_.data() + kHeaderBytes);
    const std::string_view manifest(text, h.manifest_length);
    if (!onnx::is_valid_utf8(bytes_.subspan(kHeaderBytes, h.manifest_length))) {
      fail(Kind::Malformed, "the manifest is not valid UTF-8", kHeaderBytes, "manifest");
    }
    ir::Model m;
    onnx::ParsedGraph g;
    {
      // Freed before names are resolved, so the document never sits in memory next to the resolved graph.
      const JsonDocument doc = parse_json(manifest, kHeaderBytes, name_);
      g = read_manifest(doc.root(), m);
    }
    m.graph =
        onnx::resolve_graph(g, onnx::ResolveEnv{name_, m.opsets, /*lenient=*/false, /*manifest_paths=*/true});
    m.storage.push_back(std::move(owner));
    return m;
  }

 private:
  [[noreturn]] void fail(Kind kind, const std::string& message, int64_t offset,
                         const std::string& path) const {
    throw ImportError(kind, message, name_, offset, path);
  }
  [[noreturn]] void fail(Kind kind, const std::string& message, int64_t offset, const Path& path) const {
    fail(kind, message, offset, path.str());
  }

  // --- header (format.md §1.1) ---
  uint64_t u64(size_t offset) const { return onnx::load_le64(bytes_.data() + offset); }

  Header read_header() const {
    const auto size = static_cast<uint64_t>(bytes_.size());
    if (size < kHeaderBytes) {
      fail(Kind::Malformed, "the file has " + std::to_string(size) + " bytes, less than the 64-byte header",
           0, "header");
    }
    if (std::memcmp(bytes_.data(), "ONEMODEL", 8) != 0) fail(Kind::Malformed, "bad magic", 0, "magic");
    const uint32_t version = onnx::load_le32(bytes_.data() + 8);
    if (version != kVersion) {
      fail(Kind::Unsupported,
           "format version " + std::to_string(version) + " is not supported (this reader reads 1)", 8,
           "version");
    }
    const uint32_t flags = onnx::load_le32(bytes_.data() + 12);
    if (flags != 0) fail(Kind::Unsupported, "unknown flags " + std::to_string(flags), 12, "flags");
    static constexpr const char* kFields[] = {"manifest_offset", "manifest_length", "data_offset",
                                              "data_length",     "file_length",     "reserved"};
    for (size_t k = 0; k < 6; ++k) {
      if (u64(16 + 8 * k) > static_cast<uint64_t>(INT64_MAX)) {
        fail(Kind::Malformed, std::string(kFields[k]) + " is above 2^63-1", static_cast<int64_t>(16 + 8 * k),
             kFields[k]);
      }
    }
    if (u64(48) != size) {
      fail(Kind::Malformed,
           "the header says the file is " + std::to_string(u64(48)) + " bytes; it is " +
               std::to_string(size) + " (truncated or extended)",
           48, "file_length");
    }
    if (u64(56) != 0) fail(Kind::Malformed, "reserved header bytes are not zero", 56, "reserved");
    if (u64(16) != kHeaderBytes) fail(Kind::Malformed, "manifest_offset is not 64", 16, "manifest_offset");
    Header h{u64(24), u64(32), u64(40)};
    if (h.manifest_length > size - kHeaderBytes) {
      fail(Kind::Malformed, "the manifest runs past the end of the file", 24, "manifest_length");
    }
    if (h.manifest_length > kMaxManifestBytes) {
      fail(Kind::Unsupported, "the manifest is larger than 512 MiB", 24, "manifest_length");
    }
    if (h.data_offset % 64 != 0 || h.data_offset < kHeaderBytes + h.manifest_length || h.data_offset > size) {
      fail(Kind::Malformed,
           "data_offset " + std::to_string(h.data_offset) +
               " is not a multiple of 64 between the manifest's end and the file's end",
           32, "data_offset");
    }
    if (h.data_length != size - h.data_offset) {
      fail(Kind::Malformed, "data_length does not reach exactly to the end of the file", 40, "data_length");
    }
    for (uint64_t p = kHeaderBytes + h.manifest_length; p < h.data_offset; ++p) {
      if (bytes_[p] != std::byte{0}) {
        fail(Kind::Malformed, "the padding after the manifest is not zero", static_cast<int64_t>(p),
             "padding");
      }
    }
    return h;
  }

  // --- typed access to manifest fields ---
  [[noreturn]] void wrong(JsonValue v, const Path& path, const char* what) const {
    fail(Kind::Malformed, std::string("expected ") + what, v.offset(), path);
  }

  JsonValue object(JsonValue v, const Path& path) const {
    if (v.kind() != JK::Object) wrong(v, path, "a JSON object");
    return v;
  }

  // A required member: missing is Malformed, reported at the enclosing object.
  JsonValue member(JsonValue obj, const Path& path, std::string_view key) const {
    const JsonValue v = obj.find(key);
    if (!v)
      fail(Kind::Malformed, "required field '" + std::string(key) + "' is missing", obj.offset(),
           at(path, key));
    return v;
  }

  // A value that must be an array; iterate with items().
  JsonValue array(JsonValue v, const Path& path) const {
    if (v.kind() != JK::Array) wrong(v, path, "a JSON array");
    return v;
  }
  // Calls fn(item, path of the item) for each item of `list`, which must be an array.
  template <class Fn>
  void for_items(JsonValue list, const Path& path, Fn&& fn) const {
    size_t k = 0;
    for (const JsonValue item : array(list, path).items()) fn(item, at(path, k++));
  }
  // The same for an optional array member (absent = empty).
  template <class Fn>
  void each_item(JsonValue obj, const Path& path, std::string_view key, Fn&& fn) const {
    if (const JsonValue v = obj.find(key)) for_items(v, at(path, key), fn);
  }
  // The items of an optional array member, 0 when it is absent or not an array (each_item reports that), so
  // lists are allocated once at their final size.
  static size_t item_count(JsonValue obj, std::string_view key) {
    const JsonValue v = obj.find(key);
    return v && v.kind() == JK::Array ? v.size() : 0;
  }

  int64_t integer(JsonValue v, const Path& path) const {
    if (v.kind() != JK::Integer) wrong(v, path, "an integer that fits in 64 bits");
    return v.integer();
  }
  int64_t int_field(JsonValue obj, const Path& path, std::string_view key, bool required) const {
    if (required) return integer(member(obj, path, key), at(path, key));
    const JsonValue v = obj.find(key);
    return v ? integer(v, at(path, key)) : 0;
  }

  std::string_view string(JsonValue v, const Path& path) const {
    if (v.kind() != JK::String) wrong(v, path, "a string");
    return v.text();
  }
  std::string string_field(JsonValue obj, const Path& path, std::string_view key, bool required) const {
    if (required) return std::string(string(member(obj, path, key), at(path, key)));
    const JsonValue v = obj.find(key);
    return v ? std::string(string(v, at(path, key))) : std::string();
  }
  std::vector<std::string> strings_field(JsonValue obj, const Path& path, std::string_view key) const {
    std::vector<std::string> out;
    out.reserve(item_count(obj, key));
    each_item(obj, path, key, [&](JsonValue item, const Path& p) { out.emplace_back(string(item, p)); });
    return out;
  }

  std::string bytes_value(JsonValue v, const Path& path) const {
    auto decoded = base64_decode(string(v, path));
    if (!decoded) wrong(v, path, "padded standard base64");
    return std::move(*decoded);
  }

  float float_value(JsonValue v, const Path& path) const {
    const int64_t bits = integer(v, path);
    if (bits < 0 || bits > 0xFFFFFFFF) wrong(v, path, "the 32-bit pattern of a float");
    return onnx::float_from_bits(static_cast<uint64_t>(bits));
  }

  // Graphs and types share one nesting budget (format.md §3.1).
  struct Level {
    Level(const Reader& r, JsonValue v, const Path& path) : r_(r) {
      if (++r_.depth_ > kMaxGraphTypeNesting) {
        r_.fail(Kind::Unsupported, "graphs and types nested more than 64 deep", v.offset(), path);
      }
    }
    ~Level() { --r_.depth_; }
    const Reader& r_;
  };

  // --- schema (format.md §2) ---
  ir::Type type(JsonValue v, const Path& path) const {
    Level level(*this, v, path);
    object(v, path);
    using K = ir::Type::Kind;
    const std::string kind = string_field(v, path, "kind", true);
    ir::Type t;
    const auto inner = [&] {
      if (const JsonValue in = v.find("inner"))
        t.inner = std::make_shared<ir::Type>(type(in, at(path, "inner")));
    };
    if (kind == "tensor" || kind == "sparse_tensor") {
      t.kind = kind == "tensor" ? K::Tensor : K::SparseTensor;
      t.elem_type = static_cast<int32_t>(int_field(v, path, "elem", true));
      if (v.find("shape")) {
        t.has_shape = true;
        each_item(v, path, "shape", [&](JsonValue d, const Path& p) {
          ir::Dim dim;
          if (d.kind() == JK::String) {
            dim.param = d.text();
          } else if (d.kind() != JK::Null) {
            dim.value = integer(d, p);
            if (dim.value < 0) fail(Kind::InvalidModel, "negative dimension", d.offset(), p);
          }
          t.dims.push_back(std::move(dim));
        });
      }
    } else if (kind == "sequence" || kind == "optional") {
      t.kind = kind == "sequence" ? K::Sequence : K::Optional;
      inner();
    } else if (kind == "map") {
      t.kind = K::Map;
      t.map_key_type = static_cast<int32_t>(int_field(v, path, "key", true));
      inner();
    } else if (kind == "opaque") {
      t.kind = K::Opaque;
      t.opaque_domain = string_field(v, path, "domain", false);
      t.opaque_name = string_field(v, path, "name", false);
    } else {
      fail(Kind::Unsupported, "unknown type kind '" + kind + "'", member(v, path, "kind").offset(),
           at(path, "kind"));
    }
    return t;
  }

  std::vector<int64_t> dims(JsonValue obj, const Path& path) const {
    const JsonValue list = member(obj, path, "dims");
    const Path list_path = at(path, "dims");
    std::vector<int64_t> out;
    out.reserve(array(list, list_path).size());
    for_items(list, list_path, [&](JsonValue item, const Path& p) {
      const int64_t x = integer(item, p);
      if (x < 0) fail(Kind::InvalidModel, "negative dimension " + std::to_string(x), item.offset(), p);
      out.push_back(x);
    });
    return out;
  }

  ir::TensorData tensor(JsonValue v, const Path& path) const {
    object(v, path);
    ir::TensorData t;
    t.name = string_field(v, path, "name", false);
    const JsonValue dtype = member(v, path, "dtype");
    t.elem_type = static_cast<int32_t>(integer(dtype, at(path, "dtype")));
    t.dims = dims(v, path);
    const int bits = onnx::element_bits(t.elem_type);
    if (bits < 0 || t.elem_type == 0 || integer(dtype, at(path, "dtype")) != t.elem_type) {
      fail(Kind::Unsupported, "unknown dtype " + std::to_string(dtype.integer()), dtype.offset(),
           at(path, "dtype"));
    }
    int64_t count = 1;
    for (int64_t d : t.dims) {
      if (d == 0) {
        count = 0;
        break;
      }
    }
    for (size_t k = 0; count != 0 && k < t.dims.size(); ++k) {
      if (count > (kMaxElements - 1) / t.dims[k]) {
        fail(Kind::Unsupported, "tensor has 2^60 elements or more", v.offset(), at(path, "dims"));
      }
      count *= t.dims[k];
    }
    if (t.elem_type == kStringType) {
      const JsonValue strings = array(member(v, path, "strings"), at(path, "strings"));
      if (static_cast<int64_t>(strings.size()) != count) {
        fail(Kind::InvalidModel,
             std::to_string(strings.size()) + " strings for " + std::to_string(count) + " elements",
             strings.offset(), at(path, "strings"));
      }
      t.strings.reserve(strings.size());
      for_items(strings, at(path, "strings"),
                [&](JsonValue item, const Path& p) { t.strings.push_back(bytes_value(item, p)); });
      return t;
    }
    // count < 2^60 and bits <= 128 could overflow; 2^34 elements already exceed the byte limit.
    if (count > (int64_t{1} << 34) || (count * bits + 7) / 8 > kMaxTensorBytes) {
      fail(Kind::Unsupported, "tensor needs more than 2^31-1 bytes", v.offset(), at(path, "dims"));
    }
    const int64_t expected = (count * bits + 7) / 8;
    const Path dpath = at(path, "data");
    const JsonValue data = object(member(v, path, "data"), dpath);
    const JsonValue off = member(data, dpath, "offset");
    const JsonValue len = member(data, dpath, "length");
    const int64_t offset = integer(off, at(dpath, "offset"));
    const int64_t length = integer(len, at(dpath, "length"));
    if (offset < 0) fail(Kind::Malformed, "negative offset", off.offset(), at(dpath, "offset"));
    if (length < 0) fail(Kind::Malformed, "negative length", len.offset(), at(dpath, "length"));
    if (length != expected) {
      fail(Kind::InvalidModel,
           "length " + std::to_string(length) + " does not match dims and dtype (" +
               std::to_string(expected) + " bytes)",
           len.offset(), at(dpath, "length"));
    }
    if (length > 0 && offset % 64 != 0) {
      fail(Kind::Malformed, "tensor offset " + std::to_string(offset) + " is not a multiple of 64",
           off.offset(), at(dpath, "offset"));
    }
    // Both are below 2^63, so the sum cannot wrap in unsigned 64-bit arithmetic.
    if (static_cast<uint64_t>(offset) + static_cast<uint64_t>(length) > data_.size()) {
      fail(Kind::Malformed, "tensor bytes run past the data region", off.offset(), dpath);
    }
    t.bytes = data_.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
    return t;
  }

  ir::SparseTensorData sparse(JsonValue v, const Path& path) const {
    object(v, path);
    ir::SparseTensorData s;
    s.values = tensor(member(v, path, "values"), at(path, "values"));
    s.indices = tensor(member(v, path, "indices"), at(path, "indices"));
    s.dims = dims(v, path);
    return s;
  }

  // The items of the array `list`, each converted by fn(item, path of the item).
  template <class T, class Fn>
  std::vector<T> each(JsonValue list, const Path& path, Fn&& fn) const {
    std::vector<T> out;
    out.reserve(array(list, path).size());
    for_items(list, path, [&](JsonValue item, const Path& p) { out.push_back(fn(item, p)); });
    return out;
  }

  onnx::ParsedAttribute attribute(JsonValue v, const Path& path) const {
    using T = ir::AttrType;
    object(v, path);
    onnx::ParsedAttribute pa;
    ir::Attribute& a = pa.attr;
    a.name = string_field(v, path, "name", true);
    const JsonValue type_json = member(v, path, "type");
    const int64_t code = integer(type_json, at(path, "type"));
    a.ref_attr_name = string_field(v, path, "ref", false);
    if (code < 0 || code > 14) {
      fail(Kind::Unsupported, "unknown attribute type " + std::to_string(code), type_json.offset(),
           at(path, "type"));
    }
    a.type = static_cast<T>(code);
    if (!a.ref_attr_name.empty()) return pa;
    if (a.type == T::Undefined)
      fail(Kind::InvalidModel, "attribute type 0", type_json.offset(), at(path, "type"));
    const Path vp = at(path, "value");
    const JsonValue value = member(v, path, "value");
    switch (a.type) {
      case T::Float:
        a.f = float_value(value, vp);
        break;
      case T::Int:
        a.i = integer(value, vp);
        break;
      case T::String:
        a.s = bytes_value(value, vp);
        break;
      case T::Tensor:
        a.t = std::make_shared<const ir::TensorData>(tensor(value, vp));
        break;
      case T::Graph:
        pa.g = std::make_unique<onnx::ParsedGraph>(graph(value, vp));
        break;
      case T::Floats:
        a.floats = each<float>(value, vp, [&](JsonValue x, const Path& p) { return float_value(x, p); });
        break;
      case T::Ints:
        a.ints = each<int64_t>(value, vp, [&](JsonValue x, const Path& p) { return integer(x, p); });
        break;
      case T::Strings:
        a.strings =
            each<std::string>(value, vp, [&](JsonValue x, const Path& p) { return bytes_value(x, p); });
        break;
      case T::Tensors:
        a.tensors = each<ir::TensorData>(value, vp, [&](JsonValue x, const Path& p) { return tensor(x, p); });
        break;
      case T::Graphs: {
        for_items(value, vp, [&](JsonValue item, const Path& p) {
          pa.graphs.push_back(std::make_unique<onnx::ParsedGraph>(graph(item, p)));
        });
        break;
      }
      case T::SparseTensor:
        a.sparse_tensor = std::make_shared<const ir::SparseTensorData>(sparse(value, vp));
        break;
      case T::SparseTensors:
        a.sparse_tensors =
            each<ir::SparseTensorData>(value, vp, [&](JsonValue x, const Path& p) { return sparse(x, p); });
        break;
      case T::TypeProto:
        a.tp = std::make_shared<const ir::Type>(type(value, vp));
        break;
      case T::TypeProtos:
        a.type_protos = each<ir::Type>(value, vp, [&](JsonValue x, const Path& p) { return type(x, p); });
        break;
      case T::Undefined:
        break;
    }
    return pa;
  }

  onnx::ParsedNode node(JsonValue v, const Path& path, int32_t index) const {
    object(v, path);
    onnx::ParsedNode pn;
    pn.offset = v.offset();
    ir::Node& n = pn.node;
    n.name = string_field(v, path, "name", false);
    n.op_type = string_field(v, path, "op", true);
    n.domain = string_field(v, path, "domain", false);
    if (n.domain == "ai.onnx") n.domain.clear();
    n.overload = string_field(v, path, "overload", false);
    n.file_index = index;
    n.field_path = path.str();
    pn.inputs = strings_field(v, path, "inputs");
    pn.outputs = strings_field(v, path, "outputs");
    pn.attributes.reserve(item_count(v, "attributes"));
    each_item(v, path, "attributes",
              [&](JsonValue item, const Path& p) { pn.attributes.push_back(attribute(item, p)); });
    return pn;
  }

  std::vector<onnx::ParsedValueInfo> typed_names(JsonValue g, const Path& path, std::string_view key) const {
    std::vector<onnx::ParsedValueInfo> out;
    out.reserve(item_count(g, key));
    each_item(g, path, key, [&](JsonValue item, const Path& p) {
      object(item, p);
      onnx::ParsedValueInfo info;
      info.name = string_field(item, p, "name", true);
      info.offset = item.offset();
      if (const JsonValue t = item.find("type")) info.type = type(t, at(p, "type"));
      out.push_back(std::move(info));
    });
    return out;
  }

  onnx::ParsedGraph graph(JsonValue v, const Path& path) const {
    Level level(*this, v, path);
    object(v, path);
    onnx::ParsedGraph g;
    g.name = string_field(v, path, "name", false);
    string_field(v, path, "doc", false);
    g.field_path = path.str();
    g.inputs = typed_names(v, path, "inputs");
    g.outputs = typed_names(v, path, "outputs");
    g.value_info = typed_names(v, path, "value_info");
    g.initializers.reserve(item_count(v, "initializers"));
    each_item(v, path, "initializers", [&](JsonValue item, const Path& p) {
      g.initializers.push_back({tensor(item, p), item.offset()});
    });
    each_item(v, path, "sparse_initializers", [&](JsonValue item, const Path& p) {
      g.sparse_initializers.push_back({sparse(item, p), item.offset()});
    });
    g.nodes.reserve(item_count(v, "nodes"));
    int32_t index = 0;
    each_item(v, path, "nodes",
              [&](JsonValue item, const Path& p) { g.nodes.push_back(node(item, p, index++)); });
    return g;
  }

  std::map<std::string, int64_t> opsets(JsonValue obj, const Path& path) const {
    std::map<std::string, int64_t> out;
    each_item(obj, path, "opsets", [&](JsonValue item, const Path& p) {
      object(item, p);
      std::string domain = string_field(item, p, "domain", false);
      if (domain == "ai.onnx") domain.clear();
      out[std::move(domain)] = int_field(item, p, "version", true);
    });
    return out;
  }

  ir::Function function(JsonValue v, const Path& path) const {
    object(v, path);
    ir::Function fn;
    fn.name = string_field(v, path, "name", false);
    fn.domain = string_field(v, path, "domain", false);
    fn.overload = string_field(v, path, "overload", false);
    fn.inputs = strings_field(v, path, "inputs");
    fn.outputs = strings_field(v, path, "outputs");
    fn.attributes = strings_field(v, path, "attribute_names");
    fn.opsets = opsets(v, path);
    const onnx::ResolveEnv env{name_, fn.opsets, /*lenient=*/true, /*manifest_paths=*/true};
    each_item(v, path, "attribute_defaults", [&](JsonValue item, const Path& p) {
      onnx::ParsedAttribute pa = attribute(item, p);
      fn.attribute_defaults.push_back(onnx::resolve_body_attribute(pa, env));
    });
    int32_t index = 0;
    each_item(v, path, "nodes", [&](JsonValue item, const Path& p) {
      onnx::ParsedNode pn = node(item, p, index++);
      ir::Function::BodyNode body;
      body.node = onnx::resolve_body_node(pn, env);
      body.input_names = std::move(pn.inputs);
      body.output_names = std::move(pn.outputs);
      fn.nodes.push_back(std::move(body));
    });
    return fn;
  }

  // Everything of the model but its main graph, which is returned unresolved.
  onnx::ParsedGraph read_manifest(JsonValue root, ir::Model& m) const {
    const Path path("manifest");
    const JsonValue format = member(root, path, "format");
    if (string(format, at(path, "format")) != "onemodel") {
      fail(Kind::Malformed, "format is not \"onemodel\"", format.offset(), at(path, "format"));
    }
    const JsonValue version = member(root, path, "version");
    if (integer(version, at(path, "version")) != kVersion) {
      fail(Kind::Malformed, "manifest version differs from the header's", version.offset(),
           at(path, "version"));
    }
    const JsonValue ir_version = member(root, path, "ir_version");
    m.ir_version = integer(ir_version, at(path, "ir_version"));
    if (m.ir_version < 3) {
      fail(Kind::InvalidModel, "ir_version " + std::to_string(m.ir_version) + " is older than 3",
           ir_version.offset(), at(path, "ir_version"));
    }
    m.producer_name = string_field(root, path, "producer_name", false);
    m.producer_version = string_field(root, path, "producer_version", false);
    m.domain = string_field(root, path, "domain", false);
    m.doc_string = string_field(root, path, "doc", false);
    m.model_version = int_field(root, path, "model_version", false);
    m.opsets = opsets(root, path);
    each_item(root, path, "metadata", [&](JsonValue item, const Path& p) {
      object(item, p);
      // C++17 evaluates the right side of `=` first: a bad value is reported before a bad key.
      m.metadata[string_field(item, p, "key", true)] = string_field(item, p, "value", true);
    });
    onnx::ParsedGraph g = graph(member(root, path, "graph"), at(path, "graph"));
    each_item(root, path, "functions",
              [&](JsonValue item, const Path& p) { m.functions.push_back(function(item, p)); });
    return g;
  }

  std::span<const std::byte> bytes_;
  const std::string& name_;
  std::span<const std::byte> data_;
  mutable int depth_ = 0;
};

}  // namespace

ir::Model read_model(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                     const std::string& input_name) {
  return Reader(bytes, input_name).read(std::move(owner));
}

}  // namespace onemodel::format

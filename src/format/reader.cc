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
using JK = Json::Kind;
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
    const Json root = parse_json(manifest, kHeaderBytes, name_);
    ir::Model m = read_model(root);
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
  [[noreturn]] void wrong(const Json& v, const Path& path, const char* what) const {
    fail(Kind::Malformed, std::string("expected ") + what, v.offset, path);
  }

  const Json& object(const Json& v, const Path& path) const {
    if (v.kind != JK::Object) wrong(v, path, "a JSON object");
    return v;
  }

  // A required member: missing is Malformed, reported at the enclosing object.
  const Json& member(const Json& obj, const Path& path, std::string_view key) const {
    const Json* v = obj.find(key);
    if (!v)
      fail(Kind::Malformed, "required field '" + std::string(key) + "' is missing", obj.offset,
           at(path, key));
    return *v;
  }

  const std::vector<Json>& array(const Json& v, const Path& path) const {
    if (v.kind != JK::Array) wrong(v, path, "a JSON array");
    return v.items;
  }
  // An optional array member (absent = empty).
  const std::vector<Json>& array_field(const Json& obj, const Path& path, std::string_view key) const {
    static const std::vector<Json> kEmpty;
    const Json* v = obj.find(key);
    return v ? array(*v, at(path, key)) : kEmpty;
  }

  int64_t integer(const Json& v, const Path& path) const {
    if (v.kind != JK::Integer) wrong(v, path, "an integer that fits in 64 bits");
    return v.integer;
  }
  int64_t int_field(const Json& obj, const Path& path, std::string_view key, bool required) const {
    if (required) return integer(member(obj, path, key), at(path, key));
    const Json* v = obj.find(key);
    return v ? integer(*v, at(path, key)) : 0;
  }

  const std::string& string(const Json& v, const Path& path) const {
    if (v.kind != JK::String) wrong(v, path, "a string");
    return v.text;
  }
  std::string string_field(const Json& obj, const Path& path, std::string_view key, bool required) const {
    if (required) return string(member(obj, path, key), at(path, key));
    const Json* v = obj.find(key);
    return v ? string(*v, at(path, key)) : std::string();
  }
  std::vector<std::string> strings_field(const Json& obj, const Path& path, std::string_view key) const {
    std::vector<std::string> out;
    const auto& items = array_field(obj, path, key);
    for (size_t k = 0; k < items.size(); ++k) out.push_back(string(items[k], at(at(path, key), k)));
    return out;
  }

  std::string bytes_value(const Json& v, const Path& path) const {
    auto decoded = base64_decode(string(v, path));
    if (!decoded) wrong(v, path, "padded standard base64");
    return std::move(*decoded);
  }

  float float_value(const Json& v, const Path& path) const {
    const int64_t bits = integer(v, path);
    if (bits < 0 || bits > 0xFFFFFFFF) wrong(v, path, "the 32-bit pattern of a float");
    return onnx::float_from_bits(static_cast<uint64_t>(bits));
  }

  // Graphs and types share one nesting budget (format.md §3.1).
  struct Level {
    Level(const Reader& r, const Json& v, const Path& path) : r_(r) {
      if (++r_.depth_ > kMaxGraphTypeNesting) {
        r_.fail(Kind::Unsupported, "graphs and types nested more than 64 deep", v.offset, path);
      }
    }
    ~Level() { --r_.depth_; }
    const Reader& r_;
  };

  // --- schema (format.md §2) ---
  ir::Type type(const Json& v, const Path& path) const {
    Level level(*this, v, path);
    object(v, path);
    using K = ir::Type::Kind;
    const std::string kind = string_field(v, path, "kind", true);
    ir::Type t;
    const auto inner = [&] {
      if (const Json* in = v.find("inner"))
        t.inner = std::make_shared<ir::Type>(type(*in, at(path, "inner")));
    };
    if (kind == "tensor" || kind == "sparse_tensor") {
      t.kind = kind == "tensor" ? K::Tensor : K::SparseTensor;
      t.elem_type = static_cast<int32_t>(int_field(v, path, "elem", true));
      if (const Json* shape = v.find("shape")) {
        t.has_shape = true;
        const auto& dims = array(*shape, at(path, "shape"));
        for (size_t k = 0; k < dims.size(); ++k) {
          const Json& d = dims[k];
          ir::Dim dim;
          if (d.kind == JK::String) {
            dim.param = d.text;
          } else if (d.kind != JK::Null) {
            dim.value = integer(d, at(at(path, "shape"), k));
            if (dim.value < 0)
              fail(Kind::InvalidModel, "negative dimension", d.offset, at(at(path, "shape"), k));
          }
          t.dims.push_back(std::move(dim));
        }
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
      fail(Kind::Unsupported, "unknown type kind '" + kind + "'", member(v, path, "kind").offset,
           at(path, "kind"));
    }
    return t;
  }

  std::vector<int64_t> dims(const Json& obj, const Path& path) const {
    const Json& d = member(obj, path, "dims");
    const Path dims_path = at(path, "dims");
    const auto& items = array(d, dims_path);
    std::vector<int64_t> out;
    out.reserve(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      const Path p = at(dims_path, k);
      const int64_t x = integer(items[k], p);
      if (x < 0) fail(Kind::InvalidModel, "negative dimension " + std::to_string(x), items[k].offset, p);
      out.push_back(x);
    }
    return out;
  }

  ir::TensorData tensor(const Json& v, const Path& path) const {
    object(v, path);
    ir::TensorData t;
    t.name = string_field(v, path, "name", false);
    const Json& dtype = member(v, path, "dtype");
    t.elem_type = static_cast<int32_t>(integer(dtype, at(path, "dtype")));
    t.dims = dims(v, path);
    const int bits = onnx::element_bits(t.elem_type);
    if (bits < 0 || t.elem_type == 0 || integer(dtype, at(path, "dtype")) != t.elem_type) {
      fail(Kind::Unsupported, "unknown dtype " + std::to_string(dtype.integer), dtype.offset,
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
        fail(Kind::Unsupported, "tensor has 2^60 elements or more", v.offset, at(path, "dims"));
      }
      count *= t.dims[k];
    }
    if (t.elem_type == kStringType) {
      const Json& strings = member(v, path, "strings");
      const auto& items = array(strings, at(path, "strings"));
      if (static_cast<int64_t>(items.size()) != count) {
        fail(Kind::InvalidModel,
             std::to_string(items.size()) + " strings for " + std::to_string(count) + " elements",
             strings.offset, at(path, "strings"));
      }
      for (size_t k = 0; k < items.size(); ++k)
        t.strings.push_back(bytes_value(items[k], at(at(path, "strings"), k)));
      return t;
    }
    // count < 2^60 and bits <= 128 could overflow; 2^34 elements already exceed the byte limit.
    if (count > (int64_t{1} << 34) || (count * bits + 7) / 8 > kMaxTensorBytes) {
      fail(Kind::Unsupported, "tensor needs more than 2^31-1 bytes", v.offset, at(path, "dims"));
    }
    const int64_t expected = (count * bits + 7) / 8;
    const Path dpath = at(path, "data");
    const Json& data = object(member(v, path, "data"), dpath);
    const Json& off = member(data, dpath, "offset");
    const Json& len = member(data, dpath, "length");
    const int64_t offset = integer(off, at(dpath, "offset"));
    const int64_t length = integer(len, at(dpath, "length"));
    if (offset < 0) fail(Kind::Malformed, "negative offset", off.offset, at(dpath, "offset"));
    if (length < 0) fail(Kind::Malformed, "negative length", len.offset, at(dpath, "length"));
    if (length != expected) {
      fail(Kind::InvalidModel,
           "length " + std::to_string(length) + " does not match dims and dtype (" +
               std::to_string(expected) + " bytes)",
           len.offset, at(dpath, "length"));
    }
    if (length > 0 && offset % 64 != 0) {
      fail(Kind::Malformed, "tensor offset " + std::to_string(offset) + " is not a multiple of 64",
           off.offset, at(dpath, "offset"));
    }
    // Both are below 2^63, so the sum cannot wrap in unsigned 64-bit arithmetic.
    if (static_cast<uint64_t>(offset) + static_cast<uint64_t>(length) > data_.size()) {
      fail(Kind::Malformed, "tensor bytes run past the data region", off.offset, dpath);
    }
    t.bytes = data_.subspan(static_cast<size_t>(offset), static_cast<size_t>(length));
    return t;
  }

  ir::SparseTensorData sparse(const Json& v, const Path& path) const {
    object(v, path);
    ir::SparseTensorData s;
    s.values = tensor(member(v, path, "values"), at(path, "values"));
    s.indices = tensor(member(v, path, "indices"), at(path, "indices"));
    s.dims = dims(v, path);
    return s;
  }

  template <class T, class Fn>
  std::vector<T> each(const Json& v, const Path& path, Fn&& fn) const {
    const auto& items = array(v, path);
    std::vector<T> out;
    out.reserve(items.size());
    for (size_t k = 0; k < items.size(); ++k) out.push_back(fn(items[k], at(path, k)));
    return out;
  }

  onnx::ParsedAttribute attribute(const Json& v, const Path& path) const {
    using T = ir::AttrType;
    object(v, path);
    onnx::ParsedAttribute pa;
    ir::Attribute& a = pa.attr;
    a.name = string_field(v, path, "name", true);
    const Json& type_json = member(v, path, "type");
    const int64_t code = integer(type_json, at(path, "type"));
    a.ref_attr_name = string_field(v, path, "ref", false);
    if (code < 0 || code > 14) {
      fail(Kind::Unsupported, "unknown attribute type " + std::to_string(code), type_json.offset,
           at(path, "type"));
    }
    a.type = static_cast<T>(code);
    if (!a.ref_attr_name.empty()) return pa;
    if (a.type == T::Undefined)
      fail(Kind::InvalidModel, "attribute type 0", type_json.offset, at(path, "type"));
    const Path vp = at(path, "value");
    const Json& value = member(v, path, "value");
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
        a.t = tensor(value, vp);
        break;
      case T::Graph:
        pa.g = std::make_unique<onnx::ParsedGraph>(graph(value, vp));
        break;
      case T::Floats:
        a.floats = each<float>(value, vp, [&](const Json& x, const Path& p) { return float_value(x, p); });
        break;
      case T::Ints:
        a.ints = each<int64_t>(value, vp, [&](const Json& x, const Path& p) { return integer(x, p); });
        break;
      case T::Strings:
        a.strings =
            each<std::string>(value, vp, [&](const Json& x, const Path& p) { return bytes_value(x, p); });
        break;
      case T::Tensors:
        a.tensors =
            each<ir::TensorData>(value, vp, [&](const Json& x, const Path& p) { return tensor(x, p); });
        break;
      case T::Graphs: {
        const auto& items = array(value, vp);
        for (size_t k = 0; k < items.size(); ++k) {
          pa.graphs.push_back(std::make_unique<onnx::ParsedGraph>(graph(items[k], at(vp, k))));
        }
        break;
      }
      case T::SparseTensor:
        a.sparse_tensor = sparse(value, vp);
        break;
      case T::SparseTensors:
        a.sparse_tensors =
            each<ir::SparseTensorData>(value, vp, [&](const Json& x, const Path& p) { return sparse(x, p); });
        break;
      case T::TypeProto:
        a.tp = type(value, vp);
        break;
      case T::TypeProtos:
        a.type_protos = each<ir::Type>(value, vp, [&](const Json& x, const Path& p) { return type(x, p); });
        break;
      case T::Undefined:
        break;
    }
    return pa;
  }

  onnx::ParsedNode node(const Json& v, const Path& path, int32_t index) const {
    object(v, path);
    onnx::ParsedNode pn;
    pn.offset = v.offset;
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
    const auto& attrs = array_field(v, path, "attributes");
    for (size_t k = 0; k < attrs.size(); ++k)
      pn.attributes.push_back(attribute(attrs[k], at(at(path, "attributes"), k)));
    return pn;
  }

  std::vector<onnx::ParsedValueInfo> typed_names(const Json& g, const Path& path,
                                                 std::string_view key) const {
    std::vector<onnx::ParsedValueInfo> out;
    const auto& items = array_field(g, path, key);
    const Path list = at(path, key);
    for (size_t k = 0; k < items.size(); ++k) {
      const Path p = at(list, k);
      object(items[k], p);
      onnx::ParsedValueInfo info;
      info.name = string_field(items[k], p, "name", true);
      info.offset = items[k].offset;
      if (const Json* t = items[k].find("type")) info.type = type(*t, at(p, "type"));
      out.push_back(std::move(info));
    }
    return out;
  }

  onnx::ParsedGraph graph(const Json& v, const Path& path) const {
    Level level(*this, v, path);
    object(v, path);
    onnx::ParsedGraph g;
    g.name = string_field(v, path, "name", false);
    string_field(v, path, "doc", false);
    g.field_path = path.str();
    g.inputs = typed_names(v, path, "inputs");
    g.outputs = typed_names(v, path, "outputs");
    g.value_info = typed_names(v, path, "value_info");
    const auto& inits = array_field(v, path, "initializers");
    for (size_t k = 0; k < inits.size(); ++k) {
      g.initializers.push_back({tensor(inits[k], at(at(path, "initializers"), k)), inits[k].offset});
    }
    const auto& sparse_inits = array_field(v, path, "sparse_initializers");
    for (size_t k = 0; k < sparse_inits.size(); ++k) {
      g.sparse_initializers.push_back(
          {sparse(sparse_inits[k], at(at(path, "sparse_initializers"), k)), sparse_inits[k].offset});
    }
    const auto& nodes = array_field(v, path, "nodes");
    for (size_t k = 0; k < nodes.size(); ++k) {
      g.nodes.push_back(node(nodes[k], at(at(path, "nodes"), k), static_cast<int32_t>(k)));
    }
    return g;
  }

  std::map<std::string, int64_t> opsets(const Json& obj, const Path& path) const {
    std::map<std::string, int64_t> out;
    const auto& items = array_field(obj, path, "opsets");
    const Path list = at(path, "opsets");
    for (size_t k = 0; k < items.size(); ++k) {
      const Path p = at(list, k);
      object(items[k], p);
      std::string domain = string_field(items[k], p, "domain", false);
      if (domain == "ai.onnx") domain.clear();
      out[std::move(domain)] = int_field(items[k], p, "version", true);
    }
    return out;
  }

  ir::Function function(const Json& v, const Path& path) const {
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
    const auto& defaults = array_field(v, path, "attribute_defaults");
    for (size_t k = 0; k < defaults.size(); ++k) {
      onnx::ParsedAttribute pa = attribute(defaults[k], at(at(path, "attribute_defaults"), k));
      fn.attribute_defaults.push_back(onnx::resolve_body_attribute(pa, env));
    }
    const auto& nodes = array_field(v, path, "nodes");
    for (size_t k = 0; k < nodes.size(); ++k) {
      onnx::ParsedNode pn = node(nodes[k], at(at(path, "nodes"), k), static_cast<int32_t>(k));
      ir::Function::BodyNode body;
      body.node = onnx::resolve_body_node(pn, env);
      body.input_names = std::move(pn.inputs);
      body.output_names = std::move(pn.outputs);
      fn.nodes.push_back(std::move(body));
    }
    return fn;
  }

  ir::Model read_model(const Json& root) const {
    const Path path("manifest");
    ir::Model m;
    const Json& format = member(root, path, "format");
    if (string(format, at(path, "format")) != "onemodel") {
      fail(Kind::Malformed, "format is not \"onemodel\"", format.offset, at(path, "format"));
    }
    const Json& version = member(root, path, "version");
    if (integer(version, at(path, "version")) != kVersion) {
      fail(Kind::Malformed, "manifest version differs from the header's", version.offset,
           at(path, "version"));
    }
    const Json& ir_version = member(root, path, "ir_version");
    m.ir_version = integer(ir_version, at(path, "ir_version"));
    if (m.ir_version < 3) {
      fail(Kind::InvalidModel, "ir_version " + std::to_string(m.ir_version) + " is older than 3",
           ir_version.offset, at(path, "ir_version"));
    }
    m.producer_name = string_field(root, path, "producer_name", false);
    m.producer_version = string_field(root, path, "producer_version", false);
    m.domain = string_field(root, path, "domain", false);
    m.doc_string = string_field(root, path, "doc", false);
    m.model_version = int_field(root, path, "model_version", false);
    m.opsets = opsets(root, path);
    const auto& metadata = array_field(root, path, "metadata");
    const Path list = at(path, "metadata");
    for (size_t k = 0; k < metadata.size(); ++k) {
      const Path p = at(list, k);
      object(metadata[k], p);
      m.metadata[string_field(metadata[k], p, "key", true)] = string_field(metadata[k], p, "value", true);
    }
    onnx::ParsedGraph g = graph(member(root, path, "graph"), at(path, "graph"));
    const auto& functions = array_field(root, path, "functions");
    for (size_t k = 0; k < functions.size(); ++k)
      m.functions.push_back(function(functions[k], at(at(path, "functions"), k)));
    m.graph =
        onnx::resolve_graph(g, onnx::ResolveEnv{name_, m.opsets, /*lenient=*/false, /*manifest_paths=*/true});
    return m;
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

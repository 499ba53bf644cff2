// Test-side protobuf encoder and ONNX message builders, so tests can produce exact bytes (valid or hostile)
// without a protobuf library. Field numbers follow onnx.proto.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace onemodel::test {

class Proto {
 public:
  Proto& key(uint32_t field, uint32_t wire) { return put_varint(static_cast<uint64_t>(field) << 3 | wire); }
  Proto& varint(uint32_t field, uint64_t v) { return key(field, 0).put_varint(v); }
  Proto& fixed32(uint32_t field, uint32_t v) {
    key(field, 5);
    for (int i = 0; i < 4; ++i) raw_byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Proto& f32(uint32_t field, float v) { return fixed32(field, __builtin_bit_cast(uint32_t, v)); }
  Proto& fixed64(uint32_t field, uint64_t v) {
    key(field, 1);
    for (int i = 0; i < 8; ++i) raw_byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Proto& bytes(uint32_t field, std::span<const std::byte> v) {
    key(field, 2).put_varint(v.size());
    data_.insert(data_.end(), v.begin(), v.end());
    return *this;
  }
  Proto& bytes(uint32_t field, std::string_view v) {
    return bytes(field, std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size()));
  }
  Proto& msg(uint32_t field, const Proto& m) { return bytes(field, m.data()); }
  Proto& packed_varints(uint32_t field, std::initializer_list<uint64_t> values) {
    Proto payload;
    for (uint64_t v : values) payload.put_varint(v);
    return bytes(field, payload.data());
  }
  Proto& packed_floats(uint32_t field, std::initializer_list<float> values) {
    Proto payload;
    for (float v : values) {
      const auto bits = __builtin_bit_cast(uint32_t, v);
      for (int i = 0; i < 4; ++i) payload.raw_byte(static_cast<uint8_t>(bits >> (8 * i)));
    }
    return bytes(field, payload.data());
  }
  // Bytes appended verbatim (hostile encodings).
  Proto& raw(std::initializer_list<int> bytes) {
    for (int b : bytes) raw_byte(static_cast<uint8_t>(b));
    return *this;
  }
  Proto& append(const Proto& other) {
    data_.insert(data_.end(), other.data_.begin(), other.data_.end());
    return *this;
  }
  Proto& put_varint(uint64_t v) {
    while (v >= 0x80) {
      raw_byte(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    raw_byte(static_cast<uint8_t>(v));
    return *this;
  }

  const std::vector<std::byte>& data() const { return data_; }
  std::vector<std::byte> release() && { return std::move(data_); }
  size_t size() const { return data_.size(); }

 private:
  void raw_byte(uint8_t b) { data_.push_back(static_cast<std::byte>(b)); }
  std::vector<std::byte> data_;
};

inline size_t varint_size(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

// Position of `needle` in `hay` (which must contain it exactly once for the result to be meaningful); -1 if
// absent.
inline int64_t find_bytes(std::span<const std::byte> hay, std::span<const std::byte> needle) {
  if (needle.size() > hay.size()) return -1;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (std::memcmp(hay.data() + i, needle.data(), needle.size()) == 0) return static_cast<int64_t>(i);
  }
  return -1;
}

// Position of the key of the length-delimited field `field` whose payload is `payload`, inside `whole`.
inline int64_t key_offset(const Proto& whole, uint32_t field, const Proto& payload) {
  const int64_t at = find_bytes(whole.data(), payload.data());
  if (at < 0) return -1;
  return at - static_cast<int64_t>(varint_size(payload.size()) + varint_size(uint64_t{field} << 3));
}

inline std::span<const std::byte> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// ONNX messages.
namespace onnxb {

inline Proto tensor_type(int32_t elem, std::initializer_list<int64_t> dims) {
  Proto shape;
  for (int64_t d : dims) shape.msg(1, Proto().varint(1, static_cast<uint64_t>(d)));
  return Proto().msg(1,
                     Proto().varint(1, static_cast<uint64_t>(elem)).msg(2, shape));  // TypeProto.tensor_type
}

inline Proto value(std::string_view name, int32_t elem = 1, std::initializer_list<int64_t> dims = {2}) {
  return Proto().bytes(1, name).msg(2, tensor_type(elem, dims));
}

inline Proto node(std::string_view op, std::initializer_list<std::string_view> inputs,
                  std::initializer_list<std::string_view> outputs, std::string_view name = {}) {
  Proto n;
  for (auto i : inputs) n.bytes(1, i);
  for (auto o : outputs) n.bytes(2, o);
  if (!name.empty()) n.bytes(3, name);
  return n.bytes(4, op);
}

inline Proto graph_attribute(std::string_view name, const Proto& graph) {
  return Proto().bytes(1, name).msg(6, graph).varint(20, 5);
}

// A TensorProto header: name, element type, dims; the caller adds the values.
inline Proto tensor(std::string_view name, int32_t elem, std::initializer_list<int64_t> dims) {
  Proto t;
  for (int64_t d : dims) t.varint(1, static_cast<uint64_t>(d));
  return t.varint(2, static_cast<uint64_t>(elem)).bytes(8, name);
}

inline Proto raw_floats(std::string_view name, std::initializer_list<float> values) {
  std::vector<std::byte> raw(values.size() * 4);
  std::memcpy(raw.data(), std::data(values), raw.size());
  return tensor(name, 1, {static_cast<int64_t>(values.size())}).bytes(9, raw);
}

inline Proto opset(std::string_view domain, int64_t version) {
  return Proto().bytes(1, domain).varint(2, static_cast<uint64_t>(version));
}

inline Proto model(const Proto& graph, int64_t ir_version = 8, int64_t opset_version = 17) {
  return Proto().varint(1, static_cast<uint64_t>(ir_version)).msg(8, opset("", opset_version)).msg(7, graph);
}

// x (float[2]) -> Relu -> y: the smallest useful graph.
inline Proto relu_graph() {
  return Proto().bytes(2, "g").msg(11, value("x")).msg(1, node("Relu", {"x"}, {"y"})).msg(12, value("y"));
}

// relu_graph() with its node replaced: x -> n -> y.
inline Proto model_with_node(const Proto& n) {
  return model(Proto().bytes(2, "g").msg(11, value("x")).msg(1, n).msg(12, value("y")));
}

// `ifs` If nodes, each holding the next in its then_branch, around a Relu reading the top graph's input. Only
// the top graph declares types, so the nesting depth is set by the Ifs alone: graph (level 1), then per If
// its node, attribute and branch graph, and the innermost Relu node at level 2 + 3 * ifs.
inline Proto nested_ifs(int ifs) {
  const Proto untyped_y = Proto().bytes(1, "y");
  Proto g = Proto().msg(1, node("Relu", {"x"}, {"y"})).msg(12, untyped_y);
  for (int i = 0; i < ifs; ++i) {
    g = Proto().msg(1, node("If", {"x"}, {"y"}).msg(5, graph_attribute("then_branch", g))).msg(12, untyped_y);
  }
  return model(Proto(g).msg(11, value("x")));
}

}  // namespace onnxb
}  // namespace onemodel::test

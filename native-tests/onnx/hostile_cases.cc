#include "onnx/hostile_cases.h"

#include "onnx/onnx_builder.h"

namespace onemodel::test {

namespace {

using Kind = ImportError::Kind;
using namespace onnxb;

Proto model_with_initializer(const Proto& tensor) {
  return model(relu_graph().msg(5, tensor));
}

int64_t start_of(const Proto& whole, const Proto& part) {
  return find_bytes(whole.data(), part.data());
}

class Cases {
 public:
  void add(const std::string& name, std::vector<std::byte> bytes, Kind kind,
           std::optional<int64_t> offset = {}, std::string path = {}) {
    cases.push_back(
        {std::string(to_string(kind)) + "-" + name, std::move(bytes), kind, offset, std::move(path)});
  }
  void add(const std::string& name, const Proto& p, Kind kind, std::optional<int64_t> offset = {},
           std::string path = {}) {
    add(name, p.data(), kind, offset, std::move(path));
  }
  std::vector<HostileCase> cases;
};

void wire_cases(Cases& c) {
  const Proto relu = relu_graph();
  const Proto good = model(relu);
  const Proto after_ir_version = Proto().msg(8, opset("", 17)).msg(7, relu);

  std::vector<std::byte> cut = good.data();
  cut.pop_back();
  c.add("truncated-file", cut, Kind::Malformed,
        static_cast<int64_t>(good.size() - relu.size() - varint_size(relu.size())), "ModelProto");
  c.add("truncated-varint", Proto(good).raw({0x28, 0x80}), Kind::Malformed,
        static_cast<int64_t>(good.size() + 1), "ModelProto");
  {
    const Proto attr = Proto().bytes(1, "alpha").key(2, 5).raw({0x00, 0x00});
    const Proto m = model_with_node(node("LeakyRelu", {"x"}, {"y"}).msg(5, attr));
    c.add("truncated-fixed32", m, Kind::Malformed, start_of(m, attr) + 8,
          "ModelProto.graph.node[0].attribute[0]");
  }
  c.add("varint-11-bytes",
        Proto()
            .raw({0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
            .append(after_ir_version),
        Kind::Malformed, 1, "ModelProto");
  c.add("varint-10th-byte-2",
        Proto()
            .raw({0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02})
            .append(after_ir_version),
        Kind::Malformed, 1, "ModelProto");
  {
    const Proto base = node("Relu", {"x"}, {"y"});
    const Proto n = Proto(base).key(3, 2).raw({50, 'a', 'b', 'c'});
    const Proto m = model_with_node(n);
    c.add("length-past-end", m, Kind::Malformed, start_of(m, n) + static_cast<int64_t>(base.size()) + 1,
          "ModelProto.graph.node[0]");
  }
  c.add("length-2^63", Proto().varint(1, 8).key(7, 2).put_varint(uint64_t{1} << 63), Kind::Malformed, 3,
        "ModelProto");
  for (uint32_t wire : {3u, 4u, 6u, 7u}) {
    const Proto base = node("Relu", {"x"}, {"y"});
    const Proto n = Proto(base).key(9, wire).raw({0x00});
    const Proto m = model_with_node(n);
    c.add("wire-type-" + std::to_string(wire), m, Kind::Malformed,
          start_of(m, n) + static_cast<int64_t>(base.size()), "ModelProto.graph.node[0]");
  }
  c.add("field-0", Proto().raw({0x00, 0x00}).append(good), Kind::Malformed, 0, "ModelProto");
  c.add("key-over-32-bits", Proto().raw({0x80, 0x80, 0x80, 0x80, 0x10, 0x00}).append(good), Kind::Malformed,
        0, "ModelProto");
  {
    // Each If costs three levels (node, attribute, graph): 43 of them reach past the default limit of 128.
    std::string path = "ModelProto.graph";
    for (int level = 0; level < 42; ++level) path += ".node[0].attribute[0].g";
    c.add("nesting-past-limit", nested_ifs(43), Kind::Malformed, std::nullopt,
          path + ".node[0].attribute[0]");
  }
  {
    const Proto base = node("Relu", {"x"}, {"y"});
    const Proto n = Proto(base).bytes(3, "\xC3\x28");
    const Proto m = model_with_node(n);
    c.add("utf8-node-name", m, Kind::Malformed, start_of(m, n) + static_cast<int64_t>(base.size()),
          "ModelProto.graph.node[0].name");
  }
  c.add("utf8-overlong", Proto().varint(1, 8).bytes(2, "\xC0\xAF").append(after_ir_version), Kind::Malformed,
        2, "ModelProto.producer_name");
  {
    const Proto g = Proto().bytes(2, "\xED\xA0\x80").msg(11, value("x")).msg(1, node("Relu", {"x"}, {"y"}));
    const Proto m = model(g);
    c.add("utf8-surrogate", m, Kind::Malformed, start_of(m, g), "ModelProto.graph.name");
  }
  {
    const Proto input = value("ab\xE2\x82");
    const Proto m = model(relu_graph().msg(11, input));
    c.add("utf8-cut-sequence", m, Kind::Malformed, start_of(m, input), "ModelProto.graph.input[1].name");
  }
  {
    const Proto attr = Proto().bytes(1, "a").key(7, 2).raw({6, 0, 0, 0, 0, 0, 0}).varint(20, 6);
    const Proto m = model_with_node(node("Custom", {"x"}, {"y"}).msg(5, attr));
    c.add("packed-floats-length", m, Kind::Malformed, start_of(m, attr) + 3,
          "ModelProto.graph.node[0].attribute[0]");
  }
  {
    const Proto attr = Proto().bytes(1, "a").key(8, 2).raw({1, 0x80}).varint(20, 7);
    const Proto m = model_with_node(node("Custom", {"x"}, {"y"}).msg(5, attr));
    c.add("packed-varint-cut", m, Kind::Malformed, start_of(m, attr) + 5,
          "ModelProto.graph.node[0].attribute[0]");
  }
}

void model_cases(Cases& c) {
  const Proto relu = relu_graph();
  c.add("ir-version-missing", Proto().msg(8, opset("", 17)).msg(7, relu), Kind::InvalidModel, -1,
        "ModelProto.ir_version");
  c.add("ir-version-2", model(relu, 2), Kind::InvalidModel, 0, "ModelProto.ir_version");
  c.add("no-graph", Proto().varint(1, 8).msg(8, opset("", 17)), Kind::InvalidModel, -1, "ModelProto.graph");
  {
    const Proto n = node("Relu", {"x"}, {"y"}).bytes(7, "com.example");
    const Proto m = model_with_node(n);
    c.add("unknown-domain", m, Kind::InvalidModel, key_offset(m, 1, n), "ModelProto.graph.node[0]");
  }
}

void graph_cases(Cases& c) {
  {
    const Proto second = node("Relu", {"x"}, {"y"}, "second");
    const Proto g = Proto()
                        .bytes(2, "g")
                        .msg(11, value("x"))
                        .msg(1, node("Relu", {"x"}, {"y"}, "first"))
                        .msg(1, second)
                        .msg(12, value("y"));
    const Proto m = model(g);
    c.add("duplicate-node-output", m, Kind::InvalidModel, key_offset(m, 1, second),
          "ModelProto.graph.node[1]");
  }
  {
    const Proto second = value("x", 1, {3});
    const Proto m = model(relu_graph().msg(11, second));
    c.add("duplicate-input", m, Kind::InvalidModel, key_offset(m, 11, second), "ModelProto.graph.input[1]");
  }
  {
    const Proto second = raw_floats("w", {3, 4});
    const Proto m = model(relu_graph().msg(5, raw_floats("w", {1, 2})).msg(5, second));
    c.add("duplicate-initializer", m, Kind::InvalidModel, key_offset(m, 5, second),
          "ModelProto.graph.initializer[1]");
  }
  {
    const Proto n = node("Relu", {"x"}, {"y"});
    const Proto m =
        model(Proto().bytes(2, "g").msg(11, value("x")).msg(5, raw_floats("y", {1, 2})).msg(1, n));
    c.add("initializer-and-node-output", m, Kind::InvalidModel, key_offset(m, 1, n),
          "ModelProto.graph.node[0]");
  }
  {
    const Proto n = node("Relu", {"nope"}, {"y"});
    const Proto m = model_with_node(n);
    c.add("undefined-input", m, Kind::InvalidModel, key_offset(m, 1, n), "ModelProto.graph.node[0].input[0]");
  }
  {
    const Proto out = value("ghost");
    const Proto m = model(relu_graph().msg(12, out));
    c.add("undefined-graph-output", m, Kind::InvalidModel, key_offset(m, 12, out),
          "ModelProto.graph.output[1]");
  }
  {
    const Proto a = node("Add", {"x", "b"}, {"a"});
    const Proto g = Proto()
                        .bytes(2, "g")
                        .msg(11, value("x"))
                        .msg(1, a)
                        .msg(1, node("Relu", {"a"}, {"b"}))
                        .msg(12, value("b"));
    const Proto m = model(g);
    c.add("cycle", m, Kind::InvalidModel, key_offset(m, 1, a), "ModelProto.graph.node[0]");
  }
  {
    const Proto n = node("Add", {"x", "y"}, {"y"});
    const Proto m = model_with_node(n);
    c.add("self-loop", m, Kind::InvalidModel, key_offset(m, 1, n), "ModelProto.graph.node[0]");
  }
  {
    // The branch reads the If node's own output.
    const Proto branch =
        Proto().bytes(2, "then").msg(1, node("Identity", {"res"}, {"out"})).msg(12, value("out"));
    const Proto n = node("If", {"c"}, {"res"}).msg(5, graph_attribute("then_branch", branch));
    const Proto m = model(Proto().bytes(2, "g").msg(11, value("c", 9, {})).msg(1, n).msg(12, value("res")));
    c.add("cycle-through-subgraph", m, Kind::InvalidModel, key_offset(m, 1, n), "ModelProto.graph.node[0]");
  }
  {
    const Proto inner = node("Identity", {"ghost"}, {"out"});
    const Proto branch = Proto().bytes(2, "then").msg(1, inner).msg(12, value("out"));
    const Proto n = node("If", {"c"}, {"res"}).msg(5, graph_attribute("then_branch", branch));
    const Proto m = model(Proto().bytes(2, "g").msg(11, value("c", 9, {})).msg(1, n).msg(12, value("res")));
    c.add("subgraph-undefined-name", m, Kind::InvalidModel, key_offset(m, 1, inner),
          "ModelProto.graph.node[0].attribute[0].g.node[0].input[0]");
  }
  {
    const Proto input = Proto().msg(2, tensor_type(1, {5}));
    const Proto m = model(relu_graph().msg(11, input));
    c.add("input-without-name", m, Kind::InvalidModel, key_offset(m, 11, input), "ModelProto.graph.input[1]");
  }
  {
    const Proto attr = Proto().bytes(1, "alpha");
    const Proto m = model_with_node(node("LeakyRelu", {"x"}, {"y"}).msg(5, attr));
    c.add("attribute-without-value", m, Kind::InvalidModel, key_offset(m, 5, attr),
          "ModelProto.graph.node[0].attribute[0]");
  }
  {
    const Proto attr = Proto().bytes(1, "value").varint(20, 4);
    const Proto m = model_with_node(node("Constant", {}, {"y"}).msg(5, attr));
    c.add("attribute-tensor-missing", m, Kind::InvalidModel, key_offset(m, 5, attr),
          "ModelProto.graph.node[0].attribute[0]");
  }
}

void tensor_cases(Cases& c) {
  const std::string init = "ModelProto.graph.initializer[0]";
  const auto bytes_of = [](size_t n) { return std::vector<std::byte>(n, std::byte{0}); };
  // `header` + `rest` as the only initializer; the expected offset is the key of `rest`'s first field, or the
  // initializer's own key when `at_initializer`.
  const auto add = [&](const std::string& name, const Proto& header, const Proto& rest, Kind kind,
                       const std::string& path, bool at_initializer = false) {
    const Proto t = Proto(header).append(rest);
    const Proto m = model_with_initializer(t);
    const int64_t offset =
        at_initializer ? key_offset(m, 5, t) : start_of(m, t) + static_cast<int64_t>(header.size());
    c.add(name, m, kind, offset, path);
  };
  add("raw-data-too-short", tensor("w", 1, {4}), Proto().bytes(9, bytes_of(12)), Kind::InvalidModel,
      init + ".raw_data");
  add("raw-data-too-long", tensor("w", 1, {4}), Proto().bytes(9, bytes_of(20)), Kind::InvalidModel,
      init + ".raw_data");
  add("typed-field-wrong-type", tensor("w", 7, {2}), Proto().packed_floats(4, {1, 2}), Kind::InvalidModel,
      init + ".float_data");
  add("typed-field-count", tensor("w", 1, {3}), Proto().packed_floats(4, {1, 2}), Kind::InvalidModel,
      init + ".float_data");
  add("mixed-sources", tensor("w", 1, {1}), Proto().bytes(9, bytes_of(4)).packed_floats(4, {1}),
      Kind::InvalidModel, init, true);
  add("no-values", tensor("w", 1, {2}), Proto(), Kind::InvalidModel, init, true);
  add("negative-dim", tensor("w", 1, {-1}), Proto(), Kind::InvalidModel, init + ".dims[0]", true);
  add("string-in-raw-data", tensor("w", 8, {1}), Proto().bytes(9, "a"), Kind::InvalidModel, init, true);
  add("tensor-without-type", Proto().varint(1, 2).bytes(8, "w"), Proto().packed_floats(4, {1, 2}),
      Kind::InvalidModel, init + ".data_type", true);
  add("segment", tensor("w", 1, {1}), Proto().msg(3, Proto().varint(1, 0).varint(2, 1)).bytes(9, bytes_of(4)),
      Kind::Unsupported, init + ".segment");
  add("element-type-99", tensor("w", 99, {1}), Proto(), Kind::Unsupported, init + ".data_type", true);
  add("tensor-over-2GiB", tensor("w", 1, {32768, 32768}), Proto(), Kind::Unsupported, init + ".dims", true);
  add("more-than-2^60-elements", tensor("w", 1, {int64_t{1} << 31, int64_t{1} << 31}), Proto(),
      Kind::Unsupported, init, true);
  add("external-data", tensor("w", 1, {2}),
      Proto().msg(13, Proto().bytes(1, "location").bytes(2, "w.bin")).varint(14, 1), Kind::ExternalData,
      init + ".data_location", true);
  {
    const Proto attr = Proto().bytes(1, "a").varint(3, 1).varint(20, 99);
    const Proto m = model_with_node(node("Custom", {"x"}, {"y"}).msg(5, attr));
    c.add("attribute-type-99", m, Kind::Unsupported, key_offset(m, 5, attr),
          "ModelProto.graph.node[0].attribute[0].type");
  }
}

}  // namespace

std::vector<HostileCase> hostile_cases() {
  Cases c;
  wire_cases(c);
  model_cases(c);
  graph_cases(c);
  tensor_cases(c);
  return std::move(c.cases);
}

}  // namespace onemodel::test

// Graph resolution (onnx-import.md §2 and §4): values, scopes and captures, types, opsets, order, consumers,
// functions, attributes, and the file entry point.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"

namespace onemodel::test {
namespace {

using Kind = ImportError::Kind;
using Source = ir::Value::Source;
using namespace onnxb;

ir::Model import(const Proto& p) {
  return onnx::import_model(p.data(), nullptr);
}

int32_t id(const ir::Graph& g, std::string_view name) {
  const int32_t v = g.find_value(name);
  EXPECT_GE(v, 0) << name;
  return v;
}
const ir::Value& value_of(const ir::Graph& g, std::string_view name) {
  return g.values[static_cast<size_t>(id(g, name))];
}

std::vector<int32_t> file_order(const ir::Graph& g) {
  std::vector<int32_t> out;
  for (const ir::Node& n : g.nodes) out.push_back(n.file_index);
  return out;
}

TEST(OnnxResolve, ValuesInDeclaredOrderWithInitializerDefaults) {
  const Proto sparse =
      Proto().msg(1, tensor("sp", 1, {1}).f32(4, 1)).msg(2, tensor("", 7, {1}).varint(7, 0)).varint(3, 4);
  const Proto g = Proto()
                      .msg(11, value("x"))
                      .msg(11, value("w"))
                      .msg(5, raw_floats("w", {1, 2}))  // listed as an input too: its default value
                      .msg(5, raw_floats("b", {3, 4}))
                      .msg(15, sparse)
                      .msg(1, node("Add", {"x", "w"}, {"s"}))
                      .msg(1, node("Add", {"s", "b"}, {"out"}))
                      .msg(12, value("out"));
  const ir::Model m = import(model(g));
  const ir::Graph& gr = *m.graph;
  ASSERT_EQ(gr.values.size(), 6u);
  const std::pair<const char*, Source> expected[] = {
      {"x", Source::Input},       {"w", Source::Input},
      {"b", Source::Initializer}, {"sp", Source::SparseInitializer},
      {"s", Source::NodeOutput},  {"out", Source::NodeOutput}};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(gr.values[i].name, expected[i].first);
    EXPECT_EQ(gr.values[i].source, expected[i].second) << i;
  }
  EXPECT_EQ(gr.values[1].initializer, 0);
  EXPECT_EQ(gr.values[2].initializer, 1);
  EXPECT_EQ(gr.values[0].initializer, -1);
  EXPECT_EQ(gr.values[3].sparse_initializer, 0);
  EXPECT_EQ(gr.values[4].producer, 0);
  EXPECT_EQ(gr.values[5].producer, 1);
  EXPECT_EQ(gr.inputs, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(gr.outputs, (std::vector<int32_t>{5}));
  ASSERT_EQ(gr.initializers.size(), 2u);
  EXPECT_EQ(gr.initializers[1].name, "b");
  EXPECT_EQ(gr.nodes[1].inputs, (std::vector<int32_t>{4, 2}));
  EXPECT_EQ(gr.nodes[1].outputs, (std::vector<int32_t>{5}));
  EXPECT_EQ(gr.consumers, (std::vector<std::vector<int32_t>>{{0}, {0}, {1}, {}, {1}, {}}));
  EXPECT_FALSE(gr.nodes_were_reordered);
  EXPECT_TRUE(gr.captures.empty());
  EXPECT_EQ(gr.nodes[1].field_path, "ModelProto.graph.node[1]");
}

TEST(OnnxResolve, OmittedOptionalInputsAndOutputs) {
  const ir::Model m = import(model(
      Proto().msg(11, value("x")).msg(1, node("Custom", {"x", "", "x"}, {"", "z"})).msg(12, value("z"))));
  const ir::Node& n = m.graph->nodes[0];
  EXPECT_EQ(n.inputs, (std::vector<int32_t>{0, -1, 0}));
  EXPECT_EQ(n.outputs, (std::vector<int32_t>{-1, 1}));
  EXPECT_EQ(m.graph->values.size(), 2u);
  EXPECT_EQ(m.graph->consumers[0], (std::vector<int32_t>{0}));  // read twice, listed once
}

TEST(OnnxResolve, TypesFromDeclarationsThenValueInfo) {
  const Proto g = Proto()
                      .msg(11, value("x", 1, {2}))
                      .msg(1, node("Relu", {"x"}, {"h"}))
                      .msg(1, node("Relu", {"h"}, {"y"}))
                      .msg(1, node("Relu", {"h"}, {"z"}))
                      .msg(12, value("y", 1, {3}))
                      .msg(12, Proto().bytes(1, "z"))  // declared without a type
                      .msg(13, value("h", 6, {4}))
                      .msg(13, value("y", 7, {}))  // does not override the output declaration
                      .msg(13, value("x", 7, {}))  // nor the input's
                      .msg(13, value("z", 11, {5}))
                      .msg(13, value("ghost", 1, {}));  // names nothing: ignored
  const ir::Model m = import(model(g));
  const ir::Graph& gr = *m.graph;
  EXPECT_EQ(value_of(gr, "x").type.elem_type, 1);
  EXPECT_EQ(value_of(gr, "h").type.elem_type, 6);
  EXPECT_EQ(value_of(gr, "y").type.elem_type, 1);
  ASSERT_EQ(value_of(gr, "y").type.dims.size(), 1u);
  EXPECT_EQ(value_of(gr, "y").type.dims[0].value, 3);
  EXPECT_EQ(value_of(gr, "z").type.elem_type, 11);
  EXPECT_EQ(gr.find_value("ghost"), -1);
}

TEST(OnnxResolve, TypeProtoForms) {
  const Proto dims = Proto()
                         .msg(1, Proto().varint(1, 3))
                         .msg(1, Proto().bytes(2, "batch"))
                         .msg(1, Proto())
                         .msg(1, Proto().bytes(2, "n").varint(1, 7));  // oneof: the last one set wins
  const Proto tensor_t = Proto().msg(1, Proto().varint(1, 1).msg(2, dims));
  const Proto unknown_rank = Proto().msg(1, Proto().varint(1, 1));
  const Proto seq = Proto().msg(4, Proto().msg(1, tensor_t));
  const Proto map = Proto().msg(5, Proto().varint(1, 8).msg(2, seq));
  const Proto opt = Proto().msg(9, Proto().msg(1, tensor_t));
  const Proto overridden = Proto().msg(4, Proto().msg(1, tensor_t)).msg(1, Proto().varint(1, 6));
  Proto g;
  int i = 0;
  for (const Proto* t : {&tensor_t, &unknown_rank, &seq, &map, &opt, &overridden}) {
    g.msg(11, Proto().bytes(1, "in" + std::to_string(i++)).msg(2, *t));
  }
  g.msg(11, Proto().bytes(1, "untyped")).msg(12, Proto().bytes(1, "in0"));
  const ir::Model m = import(model(g));
  const auto& v = m.graph->values;
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].type.kind, ir::Type::Kind::Tensor);
  ASSERT_TRUE(v[0].type.has_shape);
  ASSERT_EQ(v[0].type.dims.size(), 4u);
  EXPECT_EQ(v[0].type.dims[0].value, 3);
  EXPECT_EQ(v[0].type.dims[1].param, "batch");
  EXPECT_EQ(v[0].type.dims[1].value, -1);
  EXPECT_EQ(v[0].type.dims[2].value, -1);
  EXPECT_EQ(v[0].type.dims[2].param, "");
  EXPECT_EQ(v[0].type.dims[3].value, 7);
  EXPECT_EQ(v[0].type.dims[3].param, "");
  EXPECT_FALSE(v[1].type.has_shape);
  EXPECT_EQ(v[2].type.kind, ir::Type::Kind::Sequence);
  ASSERT_TRUE(v[2].type.inner);
  EXPECT_EQ(v[2].type.inner->kind, ir::Type::Kind::Tensor);
  EXPECT_EQ(v[3].type.kind, ir::Type::Kind::Map);
  EXPECT_EQ(v[3].type.map_key_type, 8);
  EXPECT_EQ(v[3].type.inner->kind, ir::Type::Kind::Sequence);
  EXPECT_EQ(v[4].type.kind, ir::Type::Kind::Optional);
  EXPECT_EQ(v[5].type.kind, ir::Type::Kind::Tensor);
  EXPECT_EQ(v[5].type.elem_type, 6);
  EXPECT_EQ(v[6].type.kind, ir::Type::Kind::None);
}

TEST(OnnxResolve, OpsetsPerDomainWithOneDefaultDomain) {
  const Proto g = Proto()
                      .msg(11, value("x"))
                      .msg(1, node("Relu", {"x"}, {"a"}))
                      .msg(1, node("Relu", {"a"}, {"b"}).bytes(7, "ai.onnx"))
                      .msg(1, node("Gelu", {"b"}, {"c"}).bytes(7, "com.microsoft"))
                      .msg(12, value("c"));
  const Proto m =
      Proto().varint(1, 8).msg(8, opset("ai.onnx", 13)).msg(8, opset("com.microsoft", 1)).msg(7, g);
  const ir::Model model_ = import(m);
  EXPECT_EQ(model_.opsets, (std::map<std::string, int64_t>{{"", 13}, {"com.microsoft", 1}}));
  const auto& nodes = model_.graph->nodes;
  EXPECT_EQ(nodes[0].opset, 13);
  EXPECT_EQ(nodes[1].domain, "");
  EXPECT_EQ(nodes[1].opset, 13);
  EXPECT_EQ(nodes[2].domain, "com.microsoft");
  EXPECT_EQ(nodes[2].opset, 1);
}

TEST(OnnxResolve, StableTopologicalSort) {
  // File order: C(b) A(x) B(a) D(x) N(t) T(x). Always the smallest ready file index: A, B, C, D, T, N.
  const Proto g = Proto()
                      .msg(11, value("x"))
                      .msg(1, node("Relu", {"b"}, {"c"}, "C"))
                      .msg(1, node("Relu", {"x"}, {"a"}, "A"))
                      .msg(1, node("Relu", {"a"}, {"b"}, "B"))
                      .msg(1, node("Relu", {"x"}, {"d"}, "D"))
                      .msg(1, node("Add", {"t", "c"}, {"n"}, "N"))
                      .msg(1, node("Relu", {"x"}, {"t"}, "T"))
                      .msg(12, value("n"))
                      .msg(12, value("d"));
  const ir::Model m = import(model(g));
  const ir::Graph& gr = *m.graph;
  EXPECT_TRUE(gr.nodes_were_reordered);
  EXPECT_EQ(file_order(gr), (std::vector<int32_t>{1, 2, 0, 3, 5, 4}));
  EXPECT_EQ(gr.nodes[2].name, "C");
  EXPECT_EQ(gr.nodes[2].field_path, "ModelProto.graph.node[0]");
  // Producers and consumers use positions in the sorted list.
  EXPECT_EQ(value_of(gr, "c").producer, 2);
  EXPECT_EQ(value_of(gr, "a").producer, 0);
  EXPECT_EQ(gr.consumers[static_cast<size_t>(id(gr, "x"))], (std::vector<int32_t>{0, 3, 4}));
  EXPECT_EQ(gr.consumers[static_cast<size_t>(id(gr, "c"))], (std::vector<int32_t>{5}));
  for (size_t i = 0; i < gr.nodes.size(); ++i) {
    for (int32_t in : gr.nodes[i].inputs) {
      const ir::Value& v = gr.values[static_cast<size_t>(in)];
      if (v.source == Source::NodeOutput) {
        EXPECT_LT(v.producer, static_cast<int32_t>(i));
      }
    }
  }
}

TEST(OnnxResolve, SubgraphScopesAndCaptures) {
  // then: defines its own x (shadowing), reads w and r from the top graph.
  const Proto then_branch = Proto()
                                .bytes(2, "then")
                                .msg(1, node("Identity", {"w"}, {"x"}))
                                .msg(1, node("Add", {"r", "x"}, {"t"}))
                                .msg(12, value("t"));
  // else: an If reading c whose branch reads r, two levels below its definition.
  const Proto inner = Proto().bytes(2, "inner").msg(1, node("Identity", {"r"}, {"q"})).msg(12, value("q"));
  const Proto else_branch =
      Proto()
          .bytes(2, "else")
          .msg(1, node("If", {"c"}, {"e"}).msg(5, graph_attribute("then_branch", inner)))
          .msg(12, value("e"));
  const Proto g = Proto()
                      .msg(11, value("x"))
                      .msg(11, value("c", 9, {}))
                      .msg(5, raw_floats("w", {1, 2}))
                      .msg(1, node("Relu", {"x"}, {"r"}))
                      .msg(1, node("If", {"c"}, {"out"})
                                  .msg(5, graph_attribute("then_branch", then_branch))
                                  .msg(5, graph_attribute("else_branch", else_branch)))
                      .msg(12, value("out"))
                      .msg(13, value("r", 1, {2}));
  const ir::Model m = import(model(g));
  const ir::Graph& top = *m.graph;
  const ir::Graph& then_g = *top.nodes[1].attributes[0].g;
  const ir::Graph& else_g = *top.nodes[1].attributes[1].g;
  const ir::Graph& inner_g = *else_g.nodes[0].attributes[0].g;

  // then: own values first (x, t), then captures in order of first use (w, r).
  ASSERT_EQ(then_g.values.size(), 4u);
  EXPECT_EQ(then_g.values[0].name, "x");
  EXPECT_EQ(then_g.values[0].source, Source::NodeOutput);
  EXPECT_EQ(then_g.captures, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(then_g.values[2].name, "w");
  EXPECT_EQ(then_g.values[2].source, Source::Outer);
  EXPECT_EQ(then_g.values[2].outer, id(top, "w"));
  EXPECT_EQ(then_g.values[3].outer, id(top, "r"));
  EXPECT_EQ(then_g.values[3].type.elem_type, 1);  // the outer value's type travels with it
  EXPECT_EQ(then_g.nodes[1].inputs, (std::vector<int32_t>{3, 0}));

  // else captures c (read by its If) and r (read by the inner branch); inner's r points at else's r.
  ASSERT_EQ(else_g.captures.size(), 2u);
  const ir::Value& else_c = else_g.values[static_cast<size_t>(else_g.captures[0])];
  const ir::Value& else_r = else_g.values[static_cast<size_t>(else_g.captures[1])];
  EXPECT_EQ(else_c.name, "c");
  EXPECT_EQ(else_c.outer, id(top, "c"));
  EXPECT_EQ(else_r.name, "r");
  EXPECT_EQ(else_r.outer, id(top, "r"));
  ASSERT_EQ(inner_g.captures.size(), 1u);
  EXPECT_EQ(inner_g.values[static_cast<size_t>(inner_g.captures[0])].outer, else_g.captures[1]);
  EXPECT_EQ(else_g.consumers[static_cast<size_t>(else_g.captures[1])], (std::vector<int32_t>{0}));

  // The top If reads what its branches capture; each reader once.
  EXPECT_EQ(top.consumers[static_cast<size_t>(id(top, "r"))], (std::vector<int32_t>{1}));
  EXPECT_EQ(top.consumers[static_cast<size_t>(id(top, "w"))], (std::vector<int32_t>{1}));
  EXPECT_EQ(top.consumers[static_cast<size_t>(id(top, "c"))], (std::vector<int32_t>{1}));
  EXPECT_EQ(top.consumers[static_cast<size_t>(id(top, "x"))], (std::vector<int32_t>{0}));
  EXPECT_TRUE(top.captures.empty());
  EXPECT_EQ(inner_g.nodes[0].field_path,
            "ModelProto.graph.node[1].attribute[1].g.node[0].attribute[0].g.node[0]");
}

TEST(OnnxResolve, SubgraphReadsTakePartInTheOrder) {
  const Proto branch = Proto().msg(1, node("Identity", {"r"}, {"o"})).msg(12, value("o"));
  const Proto g = Proto()
                      .msg(11, value("x"))
                      .msg(11, value("c", 9, {}))
                      .msg(1, node("If", {"c"}, {"out"}).msg(5, graph_attribute("then_branch", branch)))
                      .msg(1, node("Relu", {"x"}, {"r"}))
                      .msg(12, value("out"));
  const ir::Model m = import(model(g));
  EXPECT_TRUE(m.graph->nodes_were_reordered);
  EXPECT_EQ(file_order(*m.graph), (std::vector<int32_t>{1, 0}));
}

TEST(OnnxResolve, GraphOutputMayNameAnOuterValue) {
  const Proto branch = Proto().msg(12, value("x"));
  const Proto g = Proto()
                      .msg(11, value("x"))
                      .msg(11, value("c", 9, {}))
                      .msg(1, node("If", {"c"}, {"y"}).msg(5, graph_attribute("then_branch", branch)))
                      .msg(12, value("y"));
  const ir::Model m = import(model(g));
  const ir::Graph& b = *m.graph->nodes[0].attributes[0].g;
  ASSERT_EQ(b.outputs.size(), 1u);
  EXPECT_EQ(b.values[static_cast<size_t>(b.outputs[0])].source, Source::Outer);
  EXPECT_EQ(b.captures, b.outputs);
  EXPECT_EQ(m.graph->consumers[0], (std::vector<int32_t>{0}));
}

TEST(OnnxResolve, AttributesTypesAndDefaults) {
  const Proto g =
      Proto()
          .msg(11, value("x"))
          .msg(1, node("Custom", {"x"}, {"y"})
                      .msg(5, Proto().bytes(1, "f").f32(2, 0.25f))                   // no type: inferred
                      .msg(5, Proto().bytes(1, "ints").packed_varints(8, {1, 2}))    // inferred from a list
                      .msg(5, Proto().bytes(1, "i").varint(20, 2))                   // INT without a value
                      .msg(5, Proto().bytes(1, "ss").varint(20, 8))                  // STRINGS, none given
                      .msg(5, Proto().bytes(1, "t").msg(5, raw_floats("", {1})))     // TENSOR, inferred
                      .msg(5, Proto().bytes(1, "fi").f32(2, 1.0f).varint(3, 4))      // f wins over i
                      .msg(5, Proto().bytes(1, "tp").msg(14, tensor_type(1, {2}))))  // TYPE_PROTO
          .msg(12, value("y"));
  const ir::Model m = import(model(g));
  const ir::Node& n = m.graph->nodes[0];
  ASSERT_EQ(n.attributes.size(), 7u);
  EXPECT_EQ(n.find("f")->type, ir::AttrType::Float);
  EXPECT_EQ(n.find("f")->f, 0.25f);
  EXPECT_EQ(n.find("ints")->type, ir::AttrType::Ints);
  EXPECT_EQ(n.find("i")->type, ir::AttrType::Int);
  EXPECT_EQ(n.find("i")->i, 0);
  EXPECT_EQ(n.find("ss")->type, ir::AttrType::Strings);
  EXPECT_TRUE(n.find("ss")->strings.empty());
  EXPECT_EQ(n.find("t")->type, ir::AttrType::Tensor);
  EXPECT_EQ(n.find("t")->t->count(), 1);
  EXPECT_EQ(n.find("fi")->type, ir::AttrType::Float);
  EXPECT_EQ(n.find("tp")->type, ir::AttrType::TypeProto);
  EXPECT_EQ(n.find("tp")->tp->kind, ir::Type::Kind::Tensor);
  EXPECT_EQ(n.find("missing"), nullptr);
}

TEST(OnnxResolve, FunctionsAreImportedAsWritten) {
  const Proto body0 = node("Relu", {"a"}, {"t"});
  const Proto body1 = node("Mul", {"t", "ghost"}, {"b"}).bytes(7, "nowhere");  // bodies are not resolved
  const Proto branch = Proto().msg(1, node("Identity", {"t"}, {"o"})).msg(12, Proto().bytes(1, "o"));
  const Proto body2 = node("If", {"c"}, {"z"}).msg(5, graph_attribute("then_branch", branch));
  const Proto fn = Proto()
                       .bytes(1, "MyFn")
                       .bytes(10, "local")
                       .bytes(4, "a")
                       .bytes(5, "b")
                       .bytes(6, "alpha")
                       .msg(11, Proto().bytes(1, "beta").varint(3, 2).varint(20, 2))
                       .msg(9, opset("", 13))
                       .msg(7, body0)
                       .msg(7, body1)
                       .msg(7, body2);
  const Proto g =
      Proto().msg(11, value("x")).msg(1, node("MyFn", {"x"}, {"y"}).bytes(7, "local")).msg(12, value("y"));
  const ir::Model m = import(model(g).msg(8, opset("local", 1)).msg(25, fn));
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Function& f = m.functions[0];
  EXPECT_EQ(f.name, "MyFn");
  EXPECT_EQ(f.domain, "local");
  EXPECT_EQ(f.inputs, (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.outputs, (std::vector<std::string>{"b"}));
  EXPECT_EQ(f.attributes, (std::vector<std::string>{"alpha"}));
  ASSERT_EQ(f.attribute_defaults.size(), 1u);
  EXPECT_EQ(f.attribute_defaults[0].i, 2);
  EXPECT_EQ(f.opsets, (std::map<std::string, int64_t>{{"", 13}}));
  ASSERT_EQ(f.nodes.size(), 3u);
  EXPECT_EQ(f.nodes[0].node.op_type, "Relu");
  EXPECT_EQ(f.nodes[0].node.opset, 13);
  EXPECT_EQ(f.nodes[1].input_names, (std::vector<std::string>{"t", "ghost"}));
  EXPECT_EQ(f.nodes[1].output_names, (std::vector<std::string>{"b"}));
  EXPECT_EQ(f.nodes[1].node.opset, 0);
  EXPECT_EQ(f.nodes[1].node.field_path, "ModelProto.functions[0].node[1]");
  // A graph in a body sees no enclosing graph: the body names it reads become open captures.
  const ir::Graph& b = *f.nodes[2].node.attributes[0].g;
  ASSERT_EQ(b.captures.size(), 1u);
  EXPECT_EQ(b.values[static_cast<size_t>(b.captures[0])].name, "t");
  EXPECT_EQ(b.values[static_cast<size_t>(b.captures[0])].outer, -1);
  EXPECT_EQ(m.graph->nodes[0].opset, 1);
}

TEST(OnnxResolve, ModelFields) {
  const Proto m = model(relu_graph())
                      .bytes(2, "maker")
                      .bytes(3, "1.2")
                      .bytes(4, "org.example")
                      .varint(5, 42)
                      .bytes(6, "docs")
                      .msg(14, Proto().bytes(1, "k").bytes(2, "v"))
                      .msg(14, Proto().bytes(1, "a").bytes(2, "b"));
  const auto owner = std::make_shared<int>(0);
  const ir::Model r = onnx::import_model(m.data(), owner);
  EXPECT_EQ(r.ir_version, 8);
  EXPECT_EQ(r.producer_name, "maker");
  EXPECT_EQ(r.producer_version, "1.2");
  EXPECT_EQ(r.domain, "org.example");
  EXPECT_EQ(r.model_version, 42);
  EXPECT_EQ(r.doc_string, "docs");
  EXPECT_EQ(r.metadata, (std::map<std::string, std::string>{{"a", "b"}, {"k", "v"}}));
  ASSERT_EQ(r.storage.size(), 1u);
  EXPECT_EQ(r.storage[0], owner);
}

TEST(OnnxResolve, ImportModelFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("onemodel-onnx-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "m.onnx";
  const Proto m = model(relu_graph().msg(5, raw_floats("w", {1, 2})));
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(m.data().data(), 1, m.size(), f);
    std::fclose(f);
  }
  const ir::Model r = onnx::import_model_file(path);
  EXPECT_EQ(r.graph->nodes.size(), 1u);
  ASSERT_EQ(r.storage.size(), 1u);
  // The initializer views the file's bytes held by storage[0].
  const auto* base = static_cast<const std::byte*>(r.storage[0].get());
  EXPECT_GE(r.graph->initializers[0].bytes.data(), base);
  EXPECT_LE(r.graph->initializers[0].bytes.data() + 8, base + m.size());

  for (const auto& bad : {dir / "missing.onnx", dir}) {
    try {
      onnx::import_model_file(bad);
      ADD_FAILURE() << bad;
    } catch (const ImportError& e) {
      EXPECT_EQ(e.kind(), Kind::Io) << e.what();
      EXPECT_EQ(e.input_name(), bad.string());
    }
  }
  // Malformed content names the file.
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite("\x00", 1, 1, f);
    std::fclose(f);
  }
  try {
    onnx::import_model_file(path);
    ADD_FAILURE();
  } catch (const ImportError& e) {
    EXPECT_EQ(e.kind(), Kind::Malformed);
    EXPECT_EQ(e.input_name(), path.string());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onemodel::test

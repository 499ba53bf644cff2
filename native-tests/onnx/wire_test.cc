// The protobuf wire reader (onnx-import.md §1), directly and through whole-model imports.
#include "onnx/wire.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <stdexcept>

#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"

namespace onemodel::test {
namespace {

using Kind = ImportError::Kind;
using namespace onnxb;

std::vector<std::byte> bytes_of(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

// Decodes one varint from `input` with a fresh context; checks it consumed everything.
uint64_t decode(const std::vector<std::byte>& input) {
  onnx::WireContext ctx(input, "varint", "Test", 128);
  const std::byte* pos = input.data();
  const uint64_t v = onnx::read_varint(ctx, pos, input.data() + input.size());
  EXPECT_EQ(pos, input.data() + input.size());
  return v;
}

ImportError decode_error(const std::vector<std::byte>& input) {
  try {
    decode(input);
  } catch (const ImportError& e) {
    return e;
  }
  ADD_FAILURE() << "varint accepted";
  return ImportError(Kind::Io, "none");
}

ImportError import_error(const Proto& p, onnx::ImportOptions options = {}) {
  try {
    onnx::import_model(p.data(), nullptr, options);
  } catch (const ImportError& e) {
    return e;
  }
  ADD_FAILURE() << "model accepted";
  return ImportError(Kind::Io, "none");
}

ir::Model import(const Proto& p, onnx::ImportOptions options = {}) {
  return onnx::import_model(p.data(), nullptr, options);
}

TEST(OnnxWire, VarintValues) {
  EXPECT_EQ(decode(bytes_of({0x00})), 0u);
  EXPECT_EQ(decode(bytes_of({0x7F})), 127u);
  EXPECT_EQ(decode(bytes_of({0x80, 0x01})), 128u);
  EXPECT_EQ(decode(bytes_of({0xAC, 0x02})), 300u);
  EXPECT_EQ(decode(bytes_of({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01})), UINT64_MAX);
  EXPECT_EQ(decode(bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})),
            uint64_t{1} << 63);
}

TEST(OnnxWire, OverlongVarintsAreAccepted) {
  EXPECT_EQ(decode(bytes_of({0x81, 0x80, 0x00})), 1u);
  EXPECT_EQ(decode(bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00})), 0u);
}

TEST(OnnxWire, VarintErrors) {
  // Tenth byte above 1 overflows 64 bits.
  ImportError e = decode_error(bytes_of({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02}));
  EXPECT_EQ(e.kind(), Kind::Malformed);
  EXPECT_EQ(e.offset(), 0);
  EXPECT_EQ(e.input_name(), "varint");
  // Eleven bytes.
  e = decode_error(bytes_of({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}));
  EXPECT_EQ(e.kind(), Kind::Malformed);
  // Cut off.
  e = decode_error(bytes_of({0x80, 0x80}));
  EXPECT_EQ(e.kind(), Kind::Malformed);
  EXPECT_EQ(e.offset(), 0);
  e = decode_error({});
  EXPECT_EQ(e.kind(), Kind::Malformed);
}

TEST(OnnxWire, ReaderDecodesEveryWireType) {
  const Proto p =
      Proto().varint(1, 150).fixed64(2, 0x0102030405060708u).bytes(3, "abc").fixed32(4, 0xA0B0C0D0u);
  onnx::WireContext ctx(p.data(), "t", "Test", 128);
  onnx::MessageReader reader(ctx, p.data());
  onnx::Field f;
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.wire, onnx::Wire::Varint);
  EXPECT_EQ(f.value, 150u);
  EXPECT_EQ(f.offset, 0);
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f.wire, onnx::Wire::Fixed64);
  EXPECT_EQ(f.value, 0x0102030405060708u);
  EXPECT_EQ(f.offset, 3);
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f.wire, onnx::Wire::Len);
  EXPECT_EQ(onnx::to_string(f.bytes), "abc");
  EXPECT_EQ(f.bytes.data(), p.data().data() + 14);  // a view, not a copy
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f.wire, onnx::Wire::Fixed32);
  EXPECT_EQ(f.value, 0xA0B0C0D0u);
  EXPECT_FALSE(reader.next(f));
}

ImportError read_all_error(const std::vector<std::byte>& input) {
  onnx::WireContext ctx(input, "t", "Test", 128);
  onnx::MessageReader reader(ctx, input);
  onnx::Field f;
  try {
    while (reader.next(f)) {
    }
  } catch (const ImportError& e) {
    return e;
  }
  ADD_FAILURE() << "message accepted";
  return ImportError(Kind::Io, "none");
}

TEST(OnnxWire, KeyErrors) {
  for (int wire : {3, 4, 6, 7}) {
    const ImportError e = read_all_error(bytes_of({0x08, 0x01, 0x10 | wire, 0x00}));
    EXPECT_EQ(e.kind(), Kind::Malformed) << wire;
    EXPECT_EQ(e.offset(), 2) << wire;
    EXPECT_EQ(e.field_path(), "Test");
  }
  EXPECT_EQ(read_all_error(bytes_of({0x00, 0x00})).offset(), 0);              // field 0, varint
  EXPECT_EQ(read_all_error(bytes_of({0x02, 0x00})).kind(), Kind::Malformed);  // field 0, length-delimited
  EXPECT_EQ(read_all_error(bytes_of({0x80, 0x80, 0x80, 0x80, 0x10, 0x00})).offset(), 0);  // key of 33 bits
  // The largest field number fits in a 32-bit key.
  const Proto max_field = Proto().varint((1u << 29) - 1, 5);
  onnx::WireContext ctx(max_field.data(), "t", "Test", 128);
  onnx::MessageReader reader(ctx, max_field.data());
  onnx::Field f;
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f.number, (1u << 29) - 1);
}

TEST(OnnxWire, LengthsAreCheckedAgainstTheRemainder) {
  EXPECT_EQ(read_all_error(bytes_of({0x0A, 0x03, 'a', 'b'})).offset(), 1);
  // A length near 2^64 must not wrap around when compared.
  EXPECT_EQ(read_all_error(bytes_of({0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 'a'}))
                .kind(),
            Kind::Malformed);
  EXPECT_EQ(read_all_error(bytes_of({0x0D, 0x01, 0x02, 0x03})).offset(), 1);  // fixed32 cut off
  EXPECT_EQ(read_all_error(bytes_of({0x09, 0x01, 0x02})).offset(), 1);        // fixed64 cut off
  // Exactly the remainder is fine.
  const auto exact = bytes_of({0x0A, 0x02, 'a', 'b'});
  onnx::WireContext ctx(exact, "t", "Test", 128);
  onnx::MessageReader reader(ctx, exact);
  onnx::Field f;
  ASSERT_TRUE(reader.next(f));
  EXPECT_EQ(f.bytes.size(), 2u);
  EXPECT_FALSE(reader.next(f));
}

TEST(OnnxWire, Utf8Validation) {
  const auto valid = [](std::string_view s) { return onnx::is_valid_utf8(as_bytes(s)); };
  EXPECT_TRUE(valid(""));
  EXPECT_TRUE(valid("plain ascii"));
  EXPECT_TRUE(valid("\xC3\xA9"));           // é
  EXPECT_TRUE(valid("\xE2\x82\xAC"));       // €
  EXPECT_TRUE(valid("\xF0\x9F\x98\x80"));   // U+1F600
  EXPECT_TRUE(valid("\xF4\x8F\xBF\xBF"));   // U+10FFFF
  EXPECT_TRUE(valid("\xEF\xBF\xBF"));       // U+FFFF
  EXPECT_FALSE(valid("\xC0\x80"));          // overlong NUL
  EXPECT_FALSE(valid("\xC1\xBF"));          // overlong
  EXPECT_FALSE(valid("\xE0\x80\x80"));      // overlong three-byte
  EXPECT_FALSE(valid("\xF0\x80\x80\x80"));  // overlong four-byte
  EXPECT_FALSE(valid("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(valid("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(valid("\xF5\x80\x80\x80"));
  EXPECT_FALSE(valid("\xFF"));
  EXPECT_FALSE(valid("\x80"));       // lone continuation byte
  EXPECT_FALSE(valid("a\xE2\x82"));  // cut-off sequence
  EXPECT_FALSE(valid("\xC3\x28"));   // bad continuation
}

TEST(OnnxWire, StringFieldsMustBeUtf8ButBytesFieldsNot) {
  // AttributeProto.s is `bytes`: anything goes.
  const Proto attr = Proto().bytes(1, "s").bytes(4, "\xFF\xFE").varint(20, 3);
  const ir::Model m = import(model(Proto()
                                       .msg(11, value("x"))
                                       .msg(1, node("Custom", {"x"}, {"y"}).bytes(7, "my").msg(5, attr))
                                       .msg(12, value("y")))
                                 .msg(8, opset("my", 1)));
  EXPECT_EQ(m.graph->nodes[0].attributes[0].s, "\xFF\xFE");
  // NodeProto.op_type is `string`.
  const ImportError e = import_error(model(Proto().msg(1, node("\xFF", {}, {}))));
  EXPECT_EQ(e.kind(), Kind::Malformed);
  EXPECT_EQ(e.field_path(), "ModelProto.graph.node[0].op_type");
}

TEST(OnnxWire, PackedAndUnpackedRepeatedScalarsMix) {
  const Proto ints = Proto()
                         .bytes(1, "ints")
                         .packed_varints(8, {1, 2})
                         .varint(8, 3)
                         .packed_varints(8, {4, uint64_t(-5)})
                         .varint(20, 7);
  const Proto floats =
      Proto().bytes(1, "floats").f32(7, 0.5f).packed_floats(7, {1.5f, 2.5f}).f32(7, -3.0f).varint(20, 6);
  const ir::Model m = import(model_with_node(node("Custom", {"x"}, {"y"}).msg(5, ints).msg(5, floats)));
  const ir::Node& n = m.graph->nodes[0];
  EXPECT_EQ(n.attributes[0].ints, (std::vector<int64_t>{1, 2, 3, 4, -5}));
  EXPECT_EQ(n.attributes[1].floats, (std::vector<float>{0.5f, 1.5f, 2.5f, -3.0f}));
}

TEST(OnnxWire, Int32AndEnumsKeepTheLow32Bits) {
  // AttributeProto.type is an enum: 2^32 + 2 reads as 2 (INT). AttributeProto.i is int64: all 64 bits stay.
  const Proto attr = Proto().bytes(1, "a").varint(3, uint64_t{1} << 40).varint(20, (uint64_t{1} << 32) | 2);
  // TypeProto.Tensor.elem_type is int32: -1 arrives as ten bytes and reads as -1.
  const Proto in = Proto().bytes(1, "x").msg(2, Proto().msg(1, Proto().varint(1, uint64_t(-1))));
  const ir::Model m = import(
      model(Proto().msg(11, in).msg(1, node("Custom", {"x"}, {"y"}).msg(5, attr)).msg(12, value("y"))));
  EXPECT_EQ(m.graph->nodes[0].attributes[0].type, ir::AttrType::Int);
  EXPECT_EQ(m.graph->nodes[0].attributes[0].i, int64_t{1} << 40);
  EXPECT_EQ(m.graph->values[0].type.elem_type, -1);
  EXPECT_FALSE(m.graph->values[0].type.has_shape);
}

TEST(OnnxWire, UnknownFieldsAndWrongWireTypesAreSkipped) {
  const Proto unknown = Proto().varint(99, 1).fixed64(98, 2).bytes(97, "zz").fixed32(96, 3);
  Proto n = node("Relu", {"x"}, {"y"}).append(unknown).varint(3, 7);  // name (a string) sent as a varint
  const ir::Model m =
      import(Proto(model_with_node(n)).append(unknown).varint(2, 5));  // producer_name as a varint
  EXPECT_EQ(m.graph->nodes[0].name, "");
  EXPECT_EQ(m.graph->nodes[0].op_type, "Relu");
  EXPECT_EQ(m.producer_name, "");
  // ir_version sent length-delimited is skipped, so the model has none.
  const ImportError e = import_error(Proto().bytes(1, "8").msg(8, opset("", 17)).msg(7, relu_graph()));
  EXPECT_EQ(e.kind(), Kind::InvalidModel);
  EXPECT_EQ(e.field_path(), "ModelProto.ir_version");
}

TEST(OnnxWire, LastSingularOccurrenceWinsAndMessagesAreNotMerged) {
  const Proto first_graph = Proto().bytes(2, "first").msg(11, value("a")).msg(12, value("a"));
  const Proto m_bytes = model(relu_graph()).bytes(2, "one").bytes(2, "two").varint(1, 9).msg(7, first_graph);
  const ir::Model m = import(m_bytes);
  EXPECT_EQ(m.producer_name, "two");
  EXPECT_EQ(m.ir_version, 9);
  // The second graph replaces the first as a whole: no nodes of relu_graph survive.
  EXPECT_EQ(m.graph->name, "first");
  EXPECT_TRUE(m.graph->nodes.empty());
  ASSERT_EQ(m.graph->values.size(), 1u);
}

TEST(OnnxWire, NestingLimitCountsEveryMessage) {
  onnx::ImportOptions eight{.max_nesting = 8};
  // Two Ifs: the innermost node sits at level 8 (see nested_ifs).
  EXPECT_NO_THROW(import(nested_ifs(2), eight));
  // Level 9 would be the attribute of a third If.
  const ImportError e = import_error(nested_ifs(3), eight);
  EXPECT_EQ(e.kind(), Kind::Malformed);
  EXPECT_EQ(e.field_path(),
            "ModelProto.graph.node[0].attribute[0].g.node[0].attribute[0].g.node[0].attribute[0]");
  // The default of 128 allows 42 nested Ifs (1 + 42 * 3 + 1 = 128 levels) and refuses 43.
  EXPECT_NO_THROW(import(nested_ifs(42)));
  EXPECT_EQ(import_error(nested_ifs(43)).kind(), Kind::Malformed);
  EXPECT_NO_THROW(import(nested_ifs(43), {.max_nesting = 250}));
}

TEST(OnnxWire, NestingOptionRange) {
  EXPECT_THROW(import(model(relu_graph()), {.max_nesting = 7}), std::invalid_argument);
  EXPECT_THROW(import(model(relu_graph()), {.max_nesting = 251}), std::invalid_argument);
  EXPECT_NO_THROW(import(model(relu_graph()), {.max_nesting = 8}));
  EXPECT_NO_THROW(import(model(relu_graph()), {.max_nesting = 250}));
}

TEST(OnnxWire, InputsOver2GiBAreRefusedBeforeReading) {
  // Reserve address space only: nothing may be read from it.
  const size_t size = size_t{1} << 31;
  void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const std::span<const std::byte> huge(static_cast<const std::byte*>(p), size);
  try {
    onnx::import_model(huge, nullptr);
    ADD_FAILURE() << "accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.kind(), Kind::Unsupported);
  }
  std::vector<std::shared_ptr<const void>> storage;
  EXPECT_THROW(onnx::import_tensor(huge, storage), ImportError);
  munmap(p, size);
}

TEST(OnnxWire, ErrorsNameTheInput) {
  const ImportError e = import_error(Proto().raw({0x00}), {.input_name = "my-model.onnx"});
  EXPECT_EQ(e.input_name(), "my-model.onnx");
  EXPECT_NE(std::string(e.what()).find("my-model.onnx"), std::string::npos);
}

}  // namespace
}  // namespace onemodel::test

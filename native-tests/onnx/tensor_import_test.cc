// TensorProto import (onnx-import.md §3): where values come from, typed-field conversions, sizes, views.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "onnx/onnx_builder.h"
#include "onnx/onnx_reader.h"

namespace onemodel::test {
namespace {

using Kind = ImportError::Kind;
using namespace onnxb;

std::vector<uint8_t> bytes_of(const ir::TensorData& t) {
  std::vector<uint8_t> out(t.bytes.size());
  if (!out.empty()) std::memcpy(out.data(), t.bytes.data(), out.size());
  return out;
}

struct Imported {
  ir::TensorData tensor;
  std::vector<std::shared_ptr<const void>> storage;
};

Imported import(const Proto& p) {
  Imported r;
  r.tensor = onnx::import_tensor(p.data(), r.storage);
  return r;
}

ImportError import_error(const Proto& p) {
  std::vector<std::shared_ptr<const void>> storage;
  try {
    onnx::import_tensor(p.data(), storage);
  } catch (const ImportError& e) {
    return e;
  }
  ADD_FAILURE() << "tensor accepted";
  return ImportError(Kind::Io, "none");
}

TEST(OnnxTensor, RawDataIsAViewIntoTheInput) {
  const Proto p = raw_floats("w", {1.0f, -2.0f, 3.5f});
  const Imported r = import(p);
  EXPECT_EQ(r.tensor.name, "w");
  EXPECT_EQ(r.tensor.elem_type, 1);
  EXPECT_EQ(r.tensor.dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(r.tensor.count(), 3);
  ASSERT_EQ(r.tensor.bytes.size(), 12u);
  EXPECT_GE(r.tensor.bytes.data(), p.data().data());
  EXPECT_LE(r.tensor.bytes.data() + 12, p.data().data() + p.size());
  EXPECT_TRUE(r.storage.empty());
  float values[3];
  std::memcpy(values, r.tensor.bytes.data(), 12);
  EXPECT_EQ(values[1], -2.0f);
}

TEST(OnnxTensor, ScalarsAndEmptyTensors) {
  EXPECT_EQ(import(tensor("s", 7, {}).bytes(9, std::string(8, '\x01'))).tensor.count(), 1);
  const Imported empty = import(tensor("e", 1, {0, 4}));
  EXPECT_EQ(empty.tensor.count(), 0);
  EXPECT_TRUE(empty.tensor.bytes.empty());
  // With a zero extent the others may be huge: no element, no overflow.
  const int64_t big = int64_t{1} << 62;
  EXPECT_EQ(import(tensor("e", 1, {big, big, 0})).tensor.count(), 0);
}

// The typed-field conversions of §3; the expected bytes are written out by hand from the rules.
TEST(OnnxTensor, FloatAndDoubleFields) {
  EXPECT_EQ(bytes_of(import(tensor("f", 1, {2}).f32(4, 1.0f).packed_floats(4, {-2.0f})).tensor),
            (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0}));
  // complex64: two floats per element.
  EXPECT_EQ(import(tensor("c", 14, {1}).packed_floats(4, {1.0f, 2.0f})).tensor.bytes.size(), 8u);
  EXPECT_EQ(bytes_of(import(tensor("d", 11, {1}).fixed64(10, 0x3FF0000000000000u)).tensor),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
  EXPECT_EQ(import(tensor("c", 15, {1}).fixed64(10, 1).fixed64(10, 2)).tensor.bytes.size(), 16u);
}

TEST(OnnxTensor, Int64AndUint64Fields) {
  EXPECT_EQ(bytes_of(import(tensor("i", 7, {2}).packed_varints(7, {uint64_t(-2), 5})).tensor),
            (std::vector<uint8_t>{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 5, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(bytes_of(import(tensor("u", 13, {1}).varint(11, 0x8000000000000001u)).tensor),
            (std::vector<uint8_t>{1, 0, 0, 0, 0, 0, 0, 0x80}));
  // uint32 keeps the low 32 bits of each uint64_data entry.
  EXPECT_EQ(
      bytes_of(
          import(tensor("u", 12, {2}).packed_varints(11, {(uint64_t{1} << 32) + 5, 0xFFFFFFFFu})).tensor),
      (std::vector<uint8_t>{5, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST(OnnxTensor, Int32FieldServesTheOtherNumericTypes) {
  const auto convert = [](int32_t type, std::initializer_list<int64_t> dims,
                          std::initializer_list<uint64_t> v) {
    return bytes_of(import(tensor("t", type, dims).packed_varints(5, v)).tensor);
  };
  const uint64_t minus2 = uint64_t(-2);  // an int32 -2 arrives sign-extended to ten bytes
  EXPECT_EQ(convert(6, {2}, {minus2, 7}), (std::vector<uint8_t>{0xFE, 0xFF, 0xFF, 0xFF, 7, 0, 0, 0}));
  EXPECT_EQ(convert(4, {1}, {0x12345}), (std::vector<uint8_t>{0x45, 0x23}));          // uint16
  EXPECT_EQ(convert(5, {1}, {minus2}), (std::vector<uint8_t>{0xFE, 0xFF}));           // int16
  EXPECT_EQ(convert(10, {1}, {0x3C00}), (std::vector<uint8_t>{0x00, 0x3C}));          // float16 bits
  EXPECT_EQ(convert(16, {1}, {0x3F80}), (std::vector<uint8_t>{0x80, 0x3F}));          // bfloat16 bits
  EXPECT_EQ(convert(2, {2}, {0x1FF, 3}), (std::vector<uint8_t>{0xFF, 3}));            // uint8
  EXPECT_EQ(convert(3, {1}, {uint64_t(-1)}), (std::vector<uint8_t>{0xFF}));           // int8
  EXPECT_EQ(convert(17, {1}, {0x1C0}), (std::vector<uint8_t>{0xC0}));                 // float8e4m3fn
  EXPECT_EQ(convert(9, {4}, {0, 2, minus2, 1}), (std::vector<uint8_t>{0, 1, 1, 1}));  // bool
  // 4-bit and 2-bit types: one entry is one packed byte.
  EXPECT_EQ(convert(22, {3}, {0x21, 0x03}), (std::vector<uint8_t>{0x21, 0x03}));
  EXPECT_EQ(convert(25, {5}, {0xE4, 0x01}), (std::vector<uint8_t>{0xE4, 0x01}));
  // 6-bit floats: one element per entry, packed LSB first: 1 | 2 << 6 | 3 << 12 | 63 << 18 = 0xFC3081.
  EXPECT_EQ(convert(27, {4}, {1, 2, 3, 0xFF}), (std::vector<uint8_t>{0x81, 0x30, 0xFC}));
  // Five elements: 30 bits in four bytes, the fifth element in bits 24..29.
  EXPECT_EQ(convert(28, {5}, {0, 0, 0, 0, 0x3F}), (std::vector<uint8_t>{0, 0, 0, 0x3F}));
}

TEST(OnnxTensor, ConvertedDataLivesInStorage) {
  const Imported r = import(tensor("i", 7, {1}).varint(7, 1));
  ASSERT_EQ(r.storage.size(), 1u);
  ASSERT_EQ(r.tensor.bytes.size(), 8u);
  EXPECT_EQ(bytes_of(r.tensor)[0], 1);
}

TEST(OnnxTensor, SubByteRawDataLengths) {
  EXPECT_EQ(import(tensor("t", 21, {3}).bytes(9, "\x21\x03")).tensor.bytes.size(), 2u);  // uint4: ceil(3/2)
  EXPECT_EQ(import(tensor("t", 26, {5}).bytes(9, "\x01\x02")).tensor.bytes.size(), 2u);  // int2: ceil(5/4)
  EXPECT_EQ(import(tensor("t", 27, {4}).bytes(9, "abc")).tensor.bytes.size(), 3u);       // float6: 24 bits
  EXPECT_EQ(import_error(tensor("t", 21, {3}).bytes(9, "abc")).kind(), Kind::InvalidModel);
}

TEST(OnnxTensor, Strings) {
  const Imported r = import(tensor("s", 8, {2}).bytes(6, "hello").bytes(6, std::string_view("\xFF\x00", 2)));
  EXPECT_TRUE(r.tensor.bytes.empty());
  EXPECT_EQ(r.tensor.strings, (std::vector<std::string>{"hello", std::string("\xFF\x00", 2)}));
  EXPECT_EQ(import_error(tensor("s", 8, {3}).bytes(6, "a")).field_path(), "TensorProto.string_data");
  EXPECT_EQ(import_error(tensor("s", 1, {1}).bytes(6, "a")).field_path(), "TensorProto.string_data");
}

TEST(OnnxTensor, SourceErrors) {
  ImportError e = import_error(tensor("w", 1, {2}).bytes(9, "1234"));
  EXPECT_EQ(e.kind(), Kind::InvalidModel);
  EXPECT_EQ(e.field_path(), "TensorProto.raw_data");
  EXPECT_EQ(e.offset(), static_cast<int64_t>(tensor("w", 1, {2}).size()));
  e = import_error(tensor("w", 1, {2}).packed_varints(7, {1, 2}));  // int64_data for floats
  EXPECT_EQ(e.field_path(), "TensorProto.int64_data");
  e = import_error(tensor("w", 1, {2}).packed_floats(4, {1}).packed_varints(7, {1}));
  EXPECT_EQ(e.kind(), Kind::InvalidModel);
  EXPECT_EQ(e.field_path(), "TensorProto");
  EXPECT_EQ(e.offset(), 0);
  e = import_error(tensor("w", 12, {1}).varint(5, 1));  // uint32 lives in uint64_data
  EXPECT_EQ(e.field_path(), "TensorProto.int32_data");
  e = import_error(tensor("w", 6, {2}).varint(5, 1));
  EXPECT_EQ(e.field_path(), "TensorProto.int32_data");
}

TEST(OnnxTensor, SizeIsDecidedFromDimsBeforeData) {
  // raw_data of the wrong length, but the dims alone already exceed 2^31-1 bytes.
  const ImportError e = import_error(tensor("w", 1, {1 << 16, 1 << 15}).bytes(9, "1234"));
  EXPECT_EQ(e.kind(), Kind::Unsupported);
  // Exactly 2^31-1 one-byte elements is allowed by the size rule (then refused for its missing data).
  EXPECT_EQ(import_error(tensor("w", 2, {(int64_t{1} << 31) - 1})).kind(), Kind::InvalidModel);
  EXPECT_EQ(import_error(tensor("w", 2, {int64_t{1} << 31})).kind(), Kind::Unsupported);
  EXPECT_EQ(import_error(tensor("w", 1, {int64_t{1} << 30, int64_t{1} << 31})).kind(), Kind::Unsupported);
  // 2^62 * 2^62 overflows 64 bits: must be caught, not wrapped.
  EXPECT_EQ(import_error(tensor("w", 1, {int64_t{1} << 62, int64_t{1} << 62})).kind(), Kind::Unsupported);
}

TEST(OnnxTensor, ExternalDataIsNotSupportedYet) {
  const ImportError e =
      import_error(tensor("w", 1, {2}).msg(13, Proto().bytes(1, "location").bytes(2, "w.bin")).varint(14, 1));
  EXPECT_EQ(e.kind(), Kind::ExternalData);
  // Mixed with raw_data it is an invalid tensor before anything is looked up.
  EXPECT_EQ(import_error(tensor("w", 1, {1}).bytes(9, "1234").varint(14, 1)).kind(), Kind::InvalidModel);
  // data_location = DEFAULT with external_data entries present reads the inline values.
  EXPECT_EQ(import(tensor("w", 1, {1}).bytes(9, "1234").varint(14, 0)).tensor.bytes.size(), 4u);
}

TEST(OnnxTensor, SparseTensorsAreImportedAsWritten) {
  const Proto values = tensor("sp", 1, {2}).packed_floats(4, {5.0f, 6.0f});
  const Proto indices = tensor("", 7, {2}).packed_varints(7, {1, 7});
  const Proto sparse = Proto().msg(1, values).msg(2, indices).packed_varints(3, {3, 4});
  const Proto g = relu_graph().msg(15, sparse);
  const ir::Model m = onnx::import_model(model(g).data(), nullptr);
  ASSERT_EQ(m.graph->sparse_initializers.size(), 1u);
  const ir::SparseTensorData& s = m.graph->sparse_initializers[0];
  EXPECT_EQ(s.dims, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(s.values.count(), 2);
  EXPECT_EQ(s.indices.count(), 2);
  const int32_t id = m.graph->find_value("sp");
  ASSERT_GE(id, 0);
  EXPECT_EQ(m.graph->values[static_cast<size_t>(id)].source, ir::Value::Source::SparseInitializer);
  EXPECT_EQ(m.graph->values[static_cast<size_t>(id)].sparse_initializer, 0);
}

// A model of about 100 MB must import through views: no tensor byte is copied, and the only storage is the
// owner.
TEST(OnnxTensor, LargeModelImportsWithoutCopyingWeights) {
  constexpr int kTensors = 25;
  constexpr size_t kFloats = 1 << 20;  // 4 MiB each
  std::vector<std::byte> weights(kFloats * 4, std::byte{0x3F});
  Proto g = relu_graph();
  for (int i = 0; i < kTensors; ++i) {
    g.msg(5, tensor("w" + std::to_string(i), 1, {static_cast<int64_t>(kFloats)}).bytes(9, weights));
  }
  const auto bytes = std::make_shared<std::vector<std::byte>>(model(g).release());
  g = Proto();
  ASSERT_GT(bytes->size(), size_t{100} << 20);
  const auto start = std::chrono::steady_clock::now();
  const ir::Model m = onnx::import_model(*bytes, bytes);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(m.graph->initializers.size(), static_cast<size_t>(kTensors));
  for (const ir::TensorData& t : m.graph->initializers) {
    EXPECT_GE(t.bytes.data(), bytes->data());
    EXPECT_LE(t.bytes.data() + t.bytes.size(), bytes->data() + bytes->size());
  }
  ASSERT_EQ(m.storage.size(), 1u);
  EXPECT_EQ(m.storage[0], bytes);
  RecordProperty("import_ms", std::to_string(ms));
  std::printf("[ info     ] %zu MB model imported in %.3f ms\n", bytes->size() >> 20, ms);
}

}  // namespace
}  // namespace onemodel::test

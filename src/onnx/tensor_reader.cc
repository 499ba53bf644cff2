// TensorProto and SparseTensorProto (onnx-import.md §3). raw_data becomes a view into the input; typed fields
// are converted into one small buffer per tensor. Sizes are decided from the dims before any value is looked
// at.
#include <array>

#include "onemodel/tensor.h"
#include "onnx/external_data.h"
#include "onnx/messages.h"

namespace onemodel::onnx {

namespace {

using Kind = ImportError::Kind;

constexpr int32_t kStringType = 8;
constexpr int64_t kMaxElements = int64_t{1} << 60;

std::string type_label(int32_t code) {
  return std::string(onnx_type_name(code)) + " (" + std::to_string(code) + ")";
}

// The typed value fields of TensorProto, by field number.
enum TypedField : uint32_t { kFloat = 4, kInt32 = 5, kString = 6, kInt64 = 7, kDouble = 10, kUint64 = 11 };
constexpr std::array<TypedField, 6> kTypedFields = {kFloat, kInt32, kString, kInt64, kDouble, kUint64};

const char* field_name(uint32_t field) {
  switch (field) {
    case kFloat:
      return "float_data";
    case kInt32:
      return "int32_data";
    case kString:
      return "string_data";
    case kInt64:
      return "int64_data";
    case kDouble:
      return "double_data";
    case kUint64:
      return "uint64_data";
    default:
      return "raw_data";
  }
}

// The typed field that holds elements of a known type.
TypedField typed_field_for(int32_t code) {
  switch (code) {
    case 1:   // float
    case 14:  // complex64
      return kFloat;
    case 11:  // double
    case 15:  // complex128
      return kDouble;
    case 7:
      return kInt64;
    case 12:  // uint32
    case 13:  // uint64
      return kUint64;
    case kStringType:
      return kString;
    default:
      return kInt32;
  }
}

// How one typed-field entry is written into the raw layout: as its low 1, 2, 4 or 8 bytes (little-endian), as
// a bool byte, or as a 6-bit code in a bit stream.
enum class Store { Bytes1 = 1, Bytes2 = 2, Bytes4 = 4, Bytes8 = 8, Bool, Bits6 };

Store store_for(int32_t code, TypedField field) {
  switch (field) {
    case kDouble:
    case kInt64:
      return Store::Bytes8;
    case kFloat:
      return Store::Bytes4;
    case kUint64:
      return code == 13 ? Store::Bytes8 : Store::Bytes4;
    default:
      break;
  }
  switch (code) {
    case 6:
      return Store::Bytes4;
    case 4:   // uint16
    case 5:   // int16
    case 10:  // float16
    case 16:  // bfloat16
      return Store::Bytes2;
    case 9:
      return Store::Bool;
    case 27:  // float6e2m3
    case 28:  // float6e3m2
      return Store::Bits6;
    default:
      return Store::Bytes1;  // 8-bit types, and one packed byte of the 4-bit and 2-bit types
  }
}

// Number of typed-field entries that make up `expected_bytes` of raw data holding `count` elements.
int64_t entries_for(Store store, int64_t count, int64_t expected_bytes) {
  if (store == Store::Bits6) return count;
  if (store == Store::Bool) return expected_bytes;
  return expected_bytes / static_cast<int>(store);
}

void store_entry(Store store, std::byte* out, int64_t i, uint64_t v) {
  switch (store) {
    case Store::Bool:
      out[i] = static_cast<std::byte>(static_cast<uint32_t>(v) != 0);
      break;
    case Store::Bits6: {
      // Elements are consecutive 6-bit codes in an LSB-first bit stream; the buffer starts zeroed.
      const auto code = static_cast<uint32_t>(v & 0x3F);
      const int64_t bit = i * 6;
      const auto shift = static_cast<uint32_t>(bit % 8);
      out[bit / 8] |= static_cast<std::byte>(code << shift);
      if (shift > 2) out[bit / 8 + 1] |= static_cast<std::byte>(code >> (8 - shift));
      break;
    }
    default: {
      const int width = static_cast<int>(store);
      for (int b = 0; b < width; ++b) out[i * width + b] = static_cast<std::byte>(v >> (8 * b));
      break;
    }
  }
}

// Element count from dims: negative extents are invalid, more than 2^60 elements unsupported.
int64_t element_count(const ReadContext& rc, const std::vector<int64_t>& dims, int64_t offset) {
  bool empty = false;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] < 0) {
      rc.wire.fail(Kind::InvalidModel, "negative dimension " + std::to_string(dims[k]), offset, "dims",
                   static_cast<int64_t>(k));
    }
    empty = empty || dims[k] == 0;
  }
  if (empty) return 0;
  int64_t count = 1;
  for (int64_t d : dims) {
    if (count > kMaxElements / d) {
      rc.wire.fail(Kind::Unsupported, "tensor has more than 2^60 elements", offset);
    }
    count *= d;
  }
  return count;
}

// What one pass over a TensorProto found; values are located, not yet converted.
struct TensorFields {
  int32_t data_type = 0;
  bool has_raw = false, external = false, has_segment = false;
  std::span<const std::byte> raw;
  int64_t raw_offset = -1, segment_offset = -1;
  std::array<int64_t, 12> typed_entries{};  // by field number
  std::array<int64_t, 12> typed_offset{};   // first occurrence, by field number
  std::vector<std::pair<std::string, std::string>> external_entries;
};

// Calls fn per entry of a numeric typed field, in whichever wire form it arrived.
template <class Fn>
void each_entry(const WireContext& wire, const Field& f, Fn&& fn) {
  if (f.number == kFloat) {
    each_fixed<4>(wire, f, fn);
  } else if (f.number == kDouble) {
    each_fixed<8>(wire, f, fn);
  } else {
    each_varint(wire, f, fn);
  }
}

TensorFields scan_tensor(ReadContext& rc, std::span<const std::byte> bytes, ir::TensorData& t) {
  TensorFields s;
  const WireContext& wire = rc.wire;
  MessageReader reader(wire, bytes);
  Field f;
  int64_t external_index = 0;
  while (reader.next(f)) {
    switch (f.number) {
      case 1:
        each_varint(wire, f, [&](uint64_t v) { t.dims.push_back(static_cast<int64_t>(v)); });
        break;
      case 2:
        if (f.wire == Wire::Varint) s.data_type = f.as_int32();
        break;
      case 3:
        if (f.wire == Wire::Len && !s.has_segment) {
          s.has_segment = true;
          s.segment_offset = f.offset;
        }
        break;
      case kFloat:
      case kDouble:
      case kInt32:
      case kInt64:
      case kUint64: {
        int64_t& entries = s.typed_entries[f.number];
        const int64_t before = entries;
        each_entry(wire, f, [&](uint64_t) { ++entries; });
        if (before == 0 && entries > 0) s.typed_offset[f.number] = f.offset;
        break;
      }
      case kString:
        if (f.wire == Wire::Len) {
          if (s.typed_entries[kString]++ == 0) s.typed_offset[kString] = f.offset;
          t.strings.push_back(to_string(f.bytes));
        }
        break;
      case 8:
        if (f.wire == Wire::Len) t.name = read_string(wire, f, "name");
        break;
      case 9:
        if (f.wire == Wire::Len) {
          s.has_raw = true;
          s.raw = f.bytes;
          s.raw_offset = f.offset;
        }
        break;
      case 12:
        if (f.wire == Wire::Len) read_string(wire, f, "doc_string");
        break;
      case 13:
        if (f.wire == Wire::Len) {
          Nested scope(rc.wire, "external_data", external_index++, f.offset);
          s.external_entries.push_back(read_string_entry(rc, f.bytes));
        }
        break;
      case 14:
        if (f.wire == Wire::Varint) s.external = f.as_int32() == 1;
        break;
      default:
        break;
    }
  }
  return s;
}

}  // namespace

int element_bits(int32_t code) {
  // Indexed by TensorProto.DataType code.
  // clang-format off
  static constexpr int16_t kBits[] = {
      -1, 32, 8, 8, 16, 16, 32, 64,   // undefined, float, uint8, int8, uint16, int16, int32, int64
      0, 8, 16, 64, 32, 64, 64, 128,  // string, bool, float16, double, uint32, uint64, complex64, complex128
      16, 8, 8, 8, 8, 4, 4, 4,        // bfloat16, the four float8 types, uint4, int4, float4e2m1
      8, 2, 2, 6, 6,                  // float8e8m0, uint2, int2, float6e2m3, float6e3m2
  };
  // clang-format on
  return code >= 0 && code < static_cast<int32_t>(std::size(kBits)) ? kBits[code] : -1;
}

ir::TensorData read_tensor(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset) {
  ir::TensorData t;
  const TensorFields s = scan_tensor(rc, bytes, t);
  const WireContext& wire = rc.wire;
  t.elem_type = s.data_type;

  if (s.has_segment) {
    wire.fail(Kind::Unsupported, "tensor segments are not supported", s.segment_offset, "segment");
  }
  const int bits = element_bits(t.elem_type);
  if (t.elem_type == 0) wire.fail(Kind::InvalidModel, "tensor has no element type", offset, "data_type");
  if (bits < 0) {
    wire.fail(Kind::Unsupported, "element type " + type_label(t.elem_type) + " is not supported", offset,
              "data_type");
  }
  const int64_t count = element_count(rc, t.dims, offset);
  // count <= 2^34 keeps count * 128 bits far from overflow; anything larger exceeds the byte limit anyway.
  if (bits > 0 && (count > (int64_t{1} << 34) || (count * bits + 7) / 8 > kMaxInputBytes)) {
    wire.fail(Kind::Unsupported, "tensor needs more than 2^31-1 bytes", offset, "dims");
  }
  const int64_t expected_bytes = (count * bits + 7) / 8;

  // Exactly one source of values: external data, raw_data, or one typed field.
  std::string sources;
  int source_count = 0;
  TypedField typed = kFloat;
  const auto add_source = [&](const char* what) {
    sources += sources.empty() ? "" : ", ";
    sources += what;
    ++source_count;
  };
  if (s.external) add_source("external data");
  if (s.has_raw) add_source("raw_data");
  for (TypedField field : kTypedFields) {
    if (s.typed_entries[field] > 0) {
      add_source(field_name(field));
      typed = field;
    }
  }
  if (source_count > 1) {
    wire.fail(Kind::InvalidModel, "tensor values given in more than one way: " + sources, offset);
  }
  if (source_count == 0) {
    if (count > 0) {
      wire.fail(Kind::InvalidModel, "tensor has " + std::to_string(count) + " elements and no values",
                offset);
    }
    return t;
  }
  if (t.elem_type == kStringType && (s.external || s.has_raw)) {
    wire.fail(Kind::InvalidModel, "string tensors keep their values in string_data", offset);
  }

  if (s.external) {
    t.bytes = load_external_data(rc, {s.external_entries, expected_bytes, offset});
    return t;
  }
  if (s.has_raw) {
    if (static_cast<int64_t>(s.raw.size()) != expected_bytes) {
      wire.fail(Kind::InvalidModel,
                "raw_data holds " + std::to_string(s.raw.size()) + " bytes, the dims need " +
                    std::to_string(expected_bytes),
                s.raw_offset, "raw_data");
    }
    t.bytes = s.raw;
    return t;
  }

  const int64_t entries = s.typed_entries[typed];
  const int64_t typed_offset = s.typed_offset[typed];
  if (typed != typed_field_for(t.elem_type)) {
    wire.fail(Kind::InvalidModel,
              std::string(field_name(typed)) + " cannot hold elements of type " + type_label(t.elem_type),
              typed_offset, field_name(typed));
  }
  if (t.elem_type == kStringType) {
    if (entries != count) {
      wire.fail(
          Kind::InvalidModel,
          "string_data holds " + std::to_string(entries) + " strings, the dims need " + std::to_string(count),
          typed_offset, "string_data");
    }
    return t;
  }
  const Store store = store_for(t.elem_type, typed);
  const int64_t wanted = entries_for(store, count, expected_bytes);
  if (entries != wanted) {
    wire.fail(Kind::InvalidModel,
              std::string(field_name(typed)) + " holds " + std::to_string(entries) +
                  " entries, the dims need " + std::to_string(wanted),
              typed_offset, field_name(typed));
  }

  // Second pass over this one message: convert the entries, now that their number is known to be right.
  auto buffer = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(expected_bytes));
  std::byte* out = buffer->data();
  int64_t i = 0;
  const auto put = [&](uint64_t v) { store_entry(store, out, i++, v); };
  MessageReader reader(wire, bytes);
  Field f;
  while (reader.next(f)) {
    if (f.number == typed) each_entry(wire, f, put);
  }
  t.bytes = {buffer->data(), buffer->size()};
  rc.storage.push_back(std::move(buffer));
  return t;
}

ir::SparseTensorData read_sparse_tensor(ReadContext& rc, std::span<const std::byte> bytes, int64_t offset) {
  ir::SparseTensorData s;
  MessageReader reader(rc.wire, bytes);
  Field f;
  while (reader.next(f)) {
    if ((f.number == 1 || f.number == 2) && f.wire == Wire::Len) {
      Nested scope(rc.wire, f.number == 1 ? "values" : "indices", -1, f.offset);
      (f.number == 1 ? s.values : s.indices) = read_tensor(rc, f.bytes, f.offset);
    } else if (f.number == 3) {
      each_varint(rc.wire, f, [&](uint64_t v) { s.dims.push_back(static_cast<int64_t>(v)); });
    }
  }
  for (size_t k = 0; k < s.dims.size(); ++k) {
    if (s.dims[k] < 0) {
      rc.wire.fail(Kind::InvalidModel, "negative dimension " + std::to_string(s.dims[k]), offset, "dims",
                   static_cast<int64_t>(k));
    }
  }
  return s;
}

}  // namespace onemodel::onnx

// The packed form of sequences and optionals (graph-runtime.md §8): one rank-1 uint8 tensor, so plans, the
// memory planner and sessions only ever see tensors. Layout, all little-endian, every part starting at a
// multiple of 8 bytes from the start of the value:
//
//   header    "OMPV", kind byte, three zero bytes                                      (8 bytes)
//   sequence  header (kind 1), element type (int32 ONNX code), count (uint32), count records
//   optional  header (kind 2: empty), or header (kind 3) and one record, or header (kind 4) and a whole
//             packed sequence (its own header included)
//   record    element type (int32), rank (uint32), rank extents (int64), row-major bytes, zero padding to 8
//
// Values start 64-byte aligned (tensor storage and arenas), so the padding keeps every element's data aligned
// for its type and the reader can hand out views without copying. Padding must be zero: the encoding of a
// value is unique, which keeps exact-mode hashes of packed outputs meaningful.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/shape.h"

namespace onemodel::packed {

enum class Kind : uint8_t { Sequence = 1, OptionalNone = 2, OptionalTensor = 3, OptionalSequence = 4 };

inline constexpr size_t kHeaderBytes = 8;
inline constexpr size_t kSequenceHeaderBytes = 8;

// True when the bytes start with the tag and a known kind (nothing else is checked).
bool has_tag(std::span<const std::byte> bytes);
// has_tag() for a value: only a rank-1 uint8 tensor can be packed.
bool has_tag(const TensorRef& value);

// Encoded size of one record, of a sequence whose records take `record_bytes` together, and of an optional.
size_t record_size(DType dtype, const Shape& shape);
inline size_t record_size(const TensorRef& t) {
  return record_size(t.dtype, t.shape);
}
inline size_t sequence_size(size_t record_bytes) {
  return kHeaderBytes + kSequenceHeaderBytes + record_bytes;
}

// One element: a view of its tensor and of its whole record (for verbatim copies).
struct Record {
  TensorRef tensor;
  std::span<const std::byte> bytes;
};

// A validated sequence inside some packed bytes.
class SequenceView {
 public:
  DType element_type() const { return element_type_; }
  size_t size() const { return count_; }
  // The records back to back, and the whole encoding (header included).
  std::span<const std::byte> records() const { return records_; }
  std::span<const std::byte> encoding() const { return encoding_; }
  // Element i < size(); walks the records from the front.
  Record at(size_t i) const;
  // Calls fn(const Record&) for every element in order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    std::span<const std::byte> rest = records_;
    for (size_t i = 0; i < count_; ++i) {
      Record r = next_record(rest);
      fn(r);
    }
  }

 private:
  friend class Reader;
  static Record next_record(std::span<const std::byte>& rest);  // on validated bytes only
  DType element_type_ = DType::F32;
  size_t count_ = 0;
  std::span<const std::byte> records_, encoding_;
};

struct Value {
  Kind kind = Kind::OptionalNone;
  SequenceView sequence;  // Sequence, OptionalSequence
  Record tensor;          // OptionalTensor
};

// Validates the whole encoding before anything is read. Throws SessionError(InvalidInput) with a message
// starting "packed value:" that names the problem.
Value parse(std::span<const std::byte> bytes);
inline Value parse(const TensorRef& value) {
  return parse(std::span<const std::byte>(value.data, value.bytes()));
}

// Writes an encoding into exactly sized storage (size it with the functions above first).
class Writer {
 public:
  explicit Writer(std::span<std::byte> out) : out_(out) {}
  void header(Kind kind);
  void sequence_header(DType element_type, size_t count);
  void record(const TensorRef& tensor);
  // Writes a record's head and zero padding; the caller fills the returned data bytes.
  std::byte* begin_record(DType dtype, const Shape& shape);
  void raw(std::span<const std::byte> bytes);  // records or a whole encoding copied verbatim
  size_t written() const { return pos_; }

 private:
  std::byte* take(size_t n);
  std::span<std::byte> out_;
  size_t pos_ = 0;
};

}  // namespace onemodel::packed

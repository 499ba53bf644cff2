// Protobuf wire-format reading over one contiguous byte range (onnx-import.md §1). No protobuf library: the
// ONNX messages are decoded field by field with MessageReader, and every failure is an ImportError that names
// the input, the byte offset from its start and the path of fields leading to the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "onemodel/error.h"

namespace onemodel::onnx {

// protobuf's own limit on one serialized message.
inline constexpr int64_t kMaxInputBytes = (int64_t{1} << 31) - 1;
inline constexpr int kMinNesting = 8, kMaxNesting = 250;

// The input being read and the chain of messages entered so far. The chain is kept as (field, index) pairs
// and only turned into text when an error is raised, so descending into a message costs no allocation.
class WireContext {
 public:
  // `root` names the outermost message ("ModelProto"). Throws std::invalid_argument when `max_nesting` is
  // outside kMinNesting..kMaxNesting (a caller mistake, not bad input).
  WireContext(std::span<const std::byte> input, std::string input_name, const char* root, int max_nesting);

  int64_t offset_of(const std::byte* p) const { return static_cast<int64_t>(p - input_.data()); }

  // Descends into a nested message found at `offset` (the position of its key); each call is one nesting
  // level. `index` is the occurrence number of a repeated field, or -1.
  void enter(const char* field, int64_t index, int64_t offset);
  void leave() { segments_.pop_back(); }

  // "ModelProto.graph.node[3]", optionally followed by a leaf field ("...node[3].name").
  std::string path(const char* leaf = nullptr, int64_t leaf_index = -1) const;

  [[noreturn]] void fail(ImportError::Kind kind, std::string message, int64_t offset,
                         const char* leaf = nullptr, int64_t leaf_index = -1) const;
  [[noreturn]] void malformed(std::string message, int64_t offset) const {
    fail(ImportError::Kind::Malformed, std::move(message), offset);
  }

 private:
  struct Segment {
    const char* field;
    int64_t index;
  };
  std::span<const std::byte> input_;
  std::string input_name_;
  const char* root_;
  int max_nesting_;
  std::vector<Segment> segments_;
};

// Scope of one nested message: enters on construction, leaves on destruction.
class Nested {
 public:
  Nested(WireContext& ctx, const char* field, int64_t index, int64_t offset) : ctx_(ctx) {
    ctx.enter(field, index, offset);
  }
  ~Nested() { ctx_.leave(); }
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;

 private:
  WireContext& ctx_;
};

enum class Wire : uint8_t { Varint = 0, Fixed64 = 1, Len = 2, Fixed32 = 5 };

// The float whose IEEE bits are the low 32 bits of `bits` (fixed32 payloads).
inline float float_from_bits(uint64_t bits) {
  return __builtin_bit_cast(float, static_cast<uint32_t>(bits));
}

struct Field {
  uint32_t number = 0;
  Wire wire = Wire::Varint;
  uint64_t value = 0;                // Varint, Fixed64 and Fixed32 payloads
  std::span<const std::byte> bytes;  // Len payload, a view into the input
  int64_t offset = 0;                // position of the key in the input

  int32_t as_int32() const { return static_cast<int32_t>(static_cast<uint32_t>(value)); }  // int32 and enums
  int64_t as_int64() const { return static_cast<int64_t>(value); }
  float as_float() const { return float_from_bits(value); }
};

inline uint32_t load_le32(const std::byte* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}
inline uint64_t load_le64(const std::byte* p) {
  return load_le32(p) | static_cast<uint64_t>(load_le32(p + 4)) << 32;
}

// Decodes one varint starting at `pos` and advances past it.
uint64_t read_varint(const WireContext& ctx, const std::byte*& pos, const std::byte* end);

// Iterates over the fields of one message. Keys and payloads are checked here; the caller decides which
// fields it knows and ignores the rest (unknown numbers and known numbers with an unexpected wire type
// alike).
class MessageReader {
 public:
  MessageReader(const WireContext& ctx, std::span<const std::byte> message)
      : ctx_(ctx), pos_(message.data()), end_(message.data() + message.size()) {}
  // Reads the next field into `field`; false at the end of the message.
  bool next(Field& field);

 private:
  const WireContext& ctx_;
  const std::byte* pos_;
  const std::byte* end_;
};

bool is_valid_utf8(std::span<const std::byte> bytes);

inline std::string to_string(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// A `string` field. protobuf refuses invalid UTF-8 while parsing, so such bytes are Malformed.
std::string read_string(const WireContext& ctx, const Field& field, const char* leaf,
                        int64_t leaf_index = -1);

// Repeated scalar fields arrive packed (one Len field) or one element per key, mixed freely. Each helper
// calls `fn` per element; a field whose wire type fits neither form is skipped (no call).
template <class Fn>
void each_varint(const WireContext& ctx, const Field& field, Fn&& fn) {
  if (field.wire == Wire::Varint) {
    fn(field.value);
    return;
  }
  if (field.wire != Wire::Len) return;
  const std::byte* pos = field.bytes.data();
  const std::byte* end = pos + field.bytes.size();
  while (pos != end) fn(read_varint(ctx, pos, end));
}

template <size_t Width, class Fn>
void each_fixed(const WireContext& ctx, const Field& field, Fn&& fn) {
  static_assert(Width == 4 || Width == 8);
  constexpr Wire kUnpacked = Width == 4 ? Wire::Fixed32 : Wire::Fixed64;
  if (field.wire == kUnpacked) {
    fn(field.value);
    return;
  }
  if (field.wire != Wire::Len) return;
  if (field.bytes.size() % Width != 0) {
    ctx.malformed("packed " + std::to_string(Width * 8) + "-bit values: length " +
                      std::to_string(field.bytes.size()) + " is not a multiple of " + std::to_string(Width),
                  field.offset);
  }
  for (size_t i = 0; i < field.bytes.size(); i += Width) {
    const std::byte* p = field.bytes.data() + i;
    fn(Width == 4 ? uint64_t{load_le32(p)} : load_le64(p));
  }
}

}  // namespace onemodel::onnx

#include "onnx/wire.h"

#include <stdexcept>

namespace onemodel::onnx {

WireContext::WireContext(std::span<const std::byte> input, std::string input_name, const char* root,
                         int max_nesting)
    : input_(input), input_name_(std::move(input_name)), root_(root), max_nesting_(max_nesting) {
  if (max_nesting < kMinNesting || max_nesting > kMaxNesting) {
    throw std::invalid_argument("ImportOptions::max_nesting must lie in 8..250, got " +
                                std::to_string(max_nesting));
  }
  segments_.reserve(static_cast<size_t>(max_nesting));
}

void WireContext::enter(const char* field, int64_t index, int64_t offset) {
  if (segments_.size() >= static_cast<size_t>(max_nesting_)) {
    fail(ImportError::Kind::Malformed,
         "messages nested deeper than " + std::to_string(max_nesting_) + " levels", offset, field, index);
  }
  segments_.push_back({field, index});
}

namespace {

void append_segment(std::string& out, const char* field, int64_t index) {
  out += '.';
  out += field;
  if (index >= 0) {
    out += '[';
    out += std::to_string(index);
    out += ']';
  }
}

}  // namespace

std::string WireContext::path(const char* leaf, int64_t leaf_index) const {
  std::string out = root_;
  for (const Segment& s : segments_) append_segment(out, s.field, s.index);
  if (leaf) append_segment(out, leaf, leaf_index);
  return out;
}

void WireContext::fail(ImportError::Kind kind, std::string message, int64_t offset, const char* leaf,
                       int64_t leaf_index) const {
  throw ImportError(kind, std::move(message), input_name_, offset, path(leaf, leaf_index));
}

uint64_t read_varint(const WireContext& ctx, const std::byte*& pos, const std::byte* end) {
  const std::byte* start = pos;
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos == end) ctx.malformed("varint cut off by the end of the data", ctx.offset_of(start));
    const auto b = static_cast<uint8_t>(*pos++);
    // The tenth byte carries bit 63 only; anything more does not fit in 64 bits (an 11-byte varint included).
    if (i == 9 && b > 1) ctx.malformed("varint longer than 64 bits", ctx.offset_of(start));
    result |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return result;
  }
  ctx.malformed("varint longer than 64 bits", ctx.offset_of(start));  // not reached: the tenth byte ends it
}

bool MessageReader::next(Field& field) {
  if (pos_ == end_) return false;
  const std::byte* key_start = pos_;
  const uint64_t key = read_varint(ctx_, pos_, end_);
  field.offset = ctx_.offset_of(key_start);
  if (key > 0xFFFFFFFFu) ctx_.malformed("field key wider than 32 bits", field.offset);
  field.number = static_cast<uint32_t>(key >> 3);
  if (field.number == 0) ctx_.malformed("field number 0", field.offset);
  const auto remaining = [&] { return static_cast<uint64_t>(end_ - pos_); };
  switch (key & 7) {
    case 0:
      field.wire = Wire::Varint;
      field.value = read_varint(ctx_, pos_, end_);
      return true;
    case 1:
      if (remaining() < 8) {
        ctx_.malformed("64-bit value cut off by the end of the data", ctx_.offset_of(pos_));
      }
      field.wire = Wire::Fixed64;
      field.value = load_le64(pos_);
      pos_ += 8;
      return true;
    case 2: {
      const std::byte* length_start = pos_;
      const uint64_t length = read_varint(ctx_, pos_, end_);
      if (length > remaining()) {
        ctx_.malformed("length " + std::to_string(length) + " exceeds the " + std::to_string(remaining()) +
                           " bytes that remain",
                       ctx_.offset_of(length_start));
      }
      field.wire = Wire::Len;
      field.bytes = {pos_, static_cast<size_t>(length)};
      pos_ += length;
      return true;
    }
    case 5:
      if (remaining() < 4) {
        ctx_.malformed("32-bit value cut off by the end of the data", ctx_.offset_of(pos_));
      }
      field.wire = Wire::Fixed32;
      field.value = load_le32(pos_);
      pos_ += 4;
      return true;
    case 3:
    case 4:
      ctx_.malformed("group wire type " + std::to_string(key & 7) + " is not supported", field.offset);
    default:
      ctx_.malformed("invalid wire type " + std::to_string(key & 7), field.offset);
  }
}

bool is_valid_utf8(std::span<const std::byte> bytes) {
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    const auto b0 = static_cast<uint8_t>(bytes[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    int length;
    uint32_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte (excludes overlongs and surrogates)
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      length = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      length = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      length = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (n - i < static_cast<size_t>(length)) return false;
    const auto b1 = static_cast<uint8_t>(bytes[i + 1]);
    if (b1 < lo || b1 > hi) return false;
    for (int k = 2; k < length; ++k) {
      if ((static_cast<uint8_t>(bytes[i + static_cast<size_t>(k)]) & 0xC0) != 0x80) return false;
    }
    i += static_cast<size_t>(length);
  }
  return true;
}

std::string read_string(const WireContext& ctx, const Field& field, const char* leaf, int64_t leaf_index) {
  if (!is_valid_utf8(field.bytes)) {
    ctx.fail(ImportError::Kind::Malformed, "string field is not valid UTF-8", field.offset, leaf, leaf_index);
  }
  return to_string(field.bytes);
}

}  // namespace onemodel::onnx

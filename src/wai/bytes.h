// Little-endian byte reading and writing for WHG1, and saturating 64-bit size arithmetic.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace onemodel::wai {

// Sizes saturate at UINT64_MAX, which is past every cap and every length a file can have.
inline uint64_t size_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}
inline uint64_t size_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

// Reads fixed-width little-endian fields; the caller has checked that they are in range.
class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  void skip(size_t n) { pos_ += n; }
  uint64_t u(int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= uint64_t(bytes_[pos_ + i]) << (8 * i);
    pos_ += width;
    return v;
  }
  uint8_t u8() { return uint8_t(u(1)); }
  uint16_t u16() { return uint16_t(u(2)); }
  uint32_t u32() { return uint32_t(u(4)); }
  uint64_t u64() { return u(8); }
  // A two's-complement signed field of 1, 2, 4 or 8 bytes.
  int64_t i(int width) {
    uint64_t v = u(width);
    if (width < 8 && (v >> (8 * width - 1)) != 0) v |= ~uint64_t(0) << (8 * width);
    int64_t r;
    std::memcpy(&r, &v, 8);
    return r;
  }
  int64_t i64() { return i(8); }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

class ByteWriter {
 public:
  void u(uint64_t v, int width) {
    for (int i = 0; i < width; ++i) out_.push_back(uint8_t(v >> (8 * i)));
  }
  void i(int64_t v, int width) { u(uint64_t(v), width); }
  void zeros(int n) { out_.insert(out_.end(), size_t(n), uint8_t{0}); }
  size_t size() const { return out_.size(); }
  std::vector<uint8_t>& bytes() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// Whether v fits a signed field of `width` bytes.
inline bool fits_signed(int64_t v, int width) {
  if (width >= 8) return true;
  const int64_t lim = int64_t(1) << (8 * width - 1);
  return v >= -lim && v < lim;
}

}  // namespace onemodel::wai

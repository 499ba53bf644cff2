// A small gzip (RFC 1952) reader over a bounds-checked DEFLATE (RFC 1951) decoder, for test data files. No
// zlib: the arm64 cross build has no arm64 zlib to link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace onemodel::test {

// Malformed, truncated or corrupted input (the message says what and where).
struct GunzipError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// CRC-32 (IEEE 802.3, reflected, as gzip stores it) of `data`, continuing from `crc` (0 to start).
uint32_t crc32(std::span<const uint8_t> data, uint32_t crc = 0);

// The decompressed bytes of one or more concatenated gzip members. Every member's CRC-32 and ISIZE are
// checked; output beyond `max_output` bytes is refused. Throws GunzipError.
std::vector<uint8_t> gunzip(std::span<const uint8_t> gz, size_t max_output = size_t{1} << 30);

}  // namespace onemodel::test

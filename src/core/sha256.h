// SHA-256 (FIPS 180-4) for output hashes: `--hash`, golden rows, conformance dumps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "onemodel/hash.h"

namespace onemodel {

class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::byte> data);
  void update(const void* data, size_t size) { update({static_cast<const std::byte*>(data), size}); }
  std::array<uint8_t, 32> finish();
  // Lower-case hex of finish().
  std::string hex();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

}  // namespace onemodel

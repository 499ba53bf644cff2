// Bit patterns of binary32 values, for code that reasons about NaN payloads, signs and exact bits.
#pragma once

#include <cstdint>
#include <cstring>

namespace onemodel {

inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace onemodel

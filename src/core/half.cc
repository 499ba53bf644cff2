#include "core/half.h"

#include <cstring>

#include "core/bits.h"

namespace onemodel {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in binary32.
    const float magnitude = static_cast<float>(mantissa) * from_bits(0x33800000u);
    return from_bits(sign | bits_of(magnitude));
  }
  if (exponent == 0x1F) {
    const uint32_t quiet = mantissa != 0 ? 0x00400000u : 0u;
    return from_bits(sign | 0x7F800000u | (mantissa << 13) | quiet);
  }
  return from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t float_to_half(float f) {
  const uint32_t bits = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t a = bits & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x1FFu));
  // Infinity, or at least 65520 (half-way past the largest half, 65504): rounds to infinity.
  if (a >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a >= 0x38800000u) {
    // Normal half: rebias the exponent by 127 - 15 = 112, then round the 13 dropped bits to even.
    const uint32_t m = a - (112u << 23);
    return static_cast<uint16_t>(sign | ((m + 0xFFFu + ((m >> 13) & 1u)) >> 13));
  }
  // At most 2^-25, half of the smallest subnormal: a tie or less rounds to zero.
  if (a <= 0x33000000u) return sign;
  const uint32_t e = a >> 23;
  const uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - e;
  uint32_t r = mant >> shift;
  const uint32_t rest = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (r & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

float bfloat16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) bits |= 0x00400000u;
  return from_bits(bits);
}

uint16_t float_to_bfloat16(float f) {
  const uint32_t bits = bits_of(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

void f16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void f32_to_f16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_half(src[i]);
}

void bf16_to_f32(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = bfloat16_to_float(src[i]);
}

void f32_to_bf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = float_to_bfloat16(src[i]);
}

}  // namespace onemodel

// binary16 (IEEE half) and bfloat16 conversions of tensors.md §10: widening is exact, narrowing rounds to
// nearest with ties to even, NaN stays NaN (made quiet), overflow becomes infinity. Pure integer arithmetic
// on the bit patterns, so every target gives the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onemodel {

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);

// Bulk forms of the four conversions above over n elements (source and destination must not overlap).
void f16_to_f32(const uint16_t* src, float* dst, size_t n);
void f32_to_f16(const float* src, uint16_t* dst, size_t n);
void bf16_to_f32(const uint16_t* src, float* dst, size_t n);
void f32_to_bf16(const float* src, uint16_t* dst, size_t n);

}  // namespace onemodel

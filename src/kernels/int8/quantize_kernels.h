// The 8-bit loops of QuantizeLinear, DynamicQuantizeLinear and DequantizeLinear (int8.md "Operators"), one
// table per kernel path like KernelTable's entries. They sit in a table of their own so that adding them left
// kernels/kernel_table.h, which nearly every file includes, untouched.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"

namespace onemodel {

struct QuantizeKernels {
  // y[i] = clamp(round_half_even(x[i] / scale) + zero_point) into uint8 or int8, NaN giving the type's
  // minimum: the bits of ops::quant::quantize_value on every path. zero_point is an integer as a float.
  void (*to_u8)(const float* x, float scale, float zero_point, uint8_t* y, size_t n);
  void (*to_i8)(const float* x, float scale, float zero_point, int8_t* y, size_t n);
  // lo = min(0, min x) and hi = max(0, max x), NaN taking no part (DynamicQuantizeLinear's range).
  void (*range)(const float* x, size_t n, float* lo, float* hi);
  // y[i] = float(x[i] - zero_point) * scale (DequantizeLinear to float32): one rounding, in the product. A
  // NaN product is left as the multiplication gives it (it needs a scale that is not finite).
  void (*from_u8)(const uint8_t* x, int32_t zero_point, float scale, float* y, size_t n);
  void (*from_i8)(const int8_t* x, int32_t zero_point, float scale, float* y, size_t n);
  // y[i] = table[x[i]] over bytes (the qdq-lookup pass's ByteLookup); y may not overlap x.
  void (*lookup)(const uint8_t* x, const uint8_t* table, uint8_t* y, size_t n);
};

// The table of a path this build compiled (the session's `kernels->path`); nullptr otherwise.
const QuantizeKernels* quantize_kernels(KernelPath path);

}  // namespace onemodel

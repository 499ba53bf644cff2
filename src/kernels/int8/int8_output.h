// The last step of every int8 kernel (int8.md "Product kernel", epilogue): finished int32 sums plus the
// optional int32 bias, then stored as int32, requantized to 8 bits, or converted to float. Written once so
// the product kernel and the depthwise kernel give the same bits for the same sums.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/kernel_table.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

// Where values go and the parameters of the conversion. Parameter arrays are indexed by the value's column
// when their *_per_col flag is set and read at [0] otherwise (a caller with one parameter per row points at
// that row's entry).
struct Int8Output {
  Int8Epilogue epilogue = Int8Epilogue::Int32;
  void* c = nullptr;
  int64_t c_col = 1;
  const int32_t* bias_i32 = nullptr;  // Int32 and Requantize only
  const float* bias_f32 = nullptr;    // Float only
  bool bias_per_col = true;
  const float* mult = nullptr;
  bool mult_per_col = false;
  int32_t y_zero = 0;
  bool y_signed = false;
  const float* scale = nullptr;
  bool scale_per_col = false;
  bool exact = false;

  // Converts y[0 .. cols) (columns j0 .. j0 + cols - 1 of the parameters; y is overwritten) and writes value
  // j at element c_base + j * c_col of c.
  void store(int32_t* y, int64_t c_base, int64_t j0, int64_t cols) const {
    if (bias_i32 != nullptr && epilogue != Int8Epilogue::Float) {
      for (int64_t j = 0; j < cols; ++j) {
        y[j] = static_cast<int32_t>(static_cast<uint32_t>(y[j]) +
                                    static_cast<uint32_t>(bias_i32[bias_per_col ? j0 + j : 0]));
      }
    }
    switch (epilogue) {
      case Int8Epilogue::Int32: {
        int32_t* out = static_cast<int32_t*>(c) + c_base;
        for (int64_t j = 0; j < cols; ++j) out[j * c_col] = y[j];
        return;
      }
      case Int8Epilogue::Requantize: {
        const float lowest = y_signed ? -128.0f : 0.0f, highest = y_signed ? 127.0f : 255.0f;
        const auto zp = static_cast<float>(y_zero);
        for (int64_t j = 0; j < cols; ++j) {
          const int32_t q =
              requantize(static_cast<float>(y[j]) * mult[mult_per_col ? j0 + j : 0], zp, lowest, highest);
          if (y_signed)
            static_cast<int8_t*>(c)[c_base + j * c_col] = static_cast<int8_t>(q);
          else
            static_cast<uint8_t*>(c)[c_base + j * c_col] = static_cast<uint8_t>(q);
        }
        return;
      }
      case Int8Epilogue::Float: {
        float* out = static_cast<float*>(c) + c_base;
        for (int64_t j = 0; j < cols; ++j) {
          float v = static_cast<float>(y[j]) * scale[scale_per_col ? j0 + j : 0];
          if (bias_f32 != nullptr) v = v + bias_f32[bias_per_col ? j0 + j : 0];
          if (exact && v != v) v = canonical_nan();
          out[j * c_col] = v;
        }
        return;
      }
    }
  }

  static float canonical_nan() {
    const uint32_t bits = 0x7FC00000u;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }

  // round_half_even(v) + zp clamped to [lowest, highest]; NaN gives lowest. v is bounded to +-2^20 first (far
  // outside every 8-bit range), then (v + 1.5 * 2^23) - 1.5 * 2^23 rounds it to an integer, ties to even: the
  // sum lies in [2^23, 2^24), where floats are the integers, and the subtraction is exact.
  static int32_t requantize(float v, float zp, float lowest, float highest) {
    constexpr float kBound = 1048576.0f, kRounder = 12582912.0f;
    const bool is_nan = v != v;
    v = v < -kBound ? -kBound : v;
    v = v > kBound ? kBound : v;
    v = is_nan ? 0.0f : v;
    v = (v + kRounder) - kRounder;
    v = v + zp;
    v = v < lowest ? lowest : v;
    v = v > highest ? highest : v;
    v = is_nan ? lowest : v;
    return static_cast<int32_t>(v);
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

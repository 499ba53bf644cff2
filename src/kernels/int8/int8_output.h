// The last step of every int8 kernel (int8.md "Product kernel", epilogue): finished int32 sums plus the
// optional int32 bias, then stored as int32, requantized to 8 bits, or converted to float. Written once so
// the product kernel and the depthwise kernel give the same bits for the same sums.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/kernel_table.h"

#if defined(__SSE4_1__)
// The SSE code below also serves wasm, where Emscripten's SSE headers map each of these intrinsics to one
// SIMD128 instruction (or two).
#include <immintrin.h>
#define ONEMODEL_INT8_SSE_TRANSPOSE 1
#if !defined(__AVX2__) || defined(__AVX512BW__)
// The 128-bit path (wasm's) and AVX-512 requantize with explicit vectors (requantize_vectors): the plain loop
// becomes compares, mask inversions and masked conversions there. AVX2 keeps the plain loop.
#define ONEMODEL_INT8_VECTOR_REQUANTIZE 1
#endif
#endif

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
    store_run(y, c_base, c_col, cols, j0, true);
  }

  // Converts y[0 .. count) (overwritten) and writes value t at element c_base + t * step of c. Value t takes
  // the parameters of column col0 + t when `across_columns`, else those of column col0 (a run down one
  // column). Loops are branch-free per element so that each path's compiler vectorises them.
  void store_run(int32_t* y, int64_t c_base, int64_t step, int64_t count, int64_t col0,
                 bool across_columns) const {
    if (epilogue != Int8Epilogue::Float) {
      convert_integers(y, count, col0, across_columns);
      with_integer_output([&](auto* out) { write(out + c_base, step, y, count); });
      return;
    }
    // Float.
    float* out = static_cast<float*>(c) + c_base;
    const float* s = scale + (scale_per_col ? col0 : 0);
    const float* bias = bias_f32 != nullptr ? bias_f32 + (bias_per_col ? col0 : 0) : nullptr;
    const bool scale_runs = scale_per_col && across_columns, bias_runs = bias_per_col && across_columns;
    // A block at a time, one plain loop per step (the parameters hoisted when they do not vary), so that
    // each loop vectorises; every value still sees float(acc) * scale, then + bias, in that order. A
    // contiguous output is computed in place (a copy from a buffer would become a slow small memcpy).
    constexpr int64_t kBlock = 64;
    float buffer[kBlock];
    for (int64_t t0 = 0; t0 < count; t0 += kBlock) {
      const int64_t len = count - t0 < kBlock ? count - t0 : kBlock;
      const int32_t* acc = y + t0;
      float* v = step == 1 ? out + t0 : buffer;
      if (scale_runs) {
        for (int64_t t = 0; t < len; ++t) v[t] = static_cast<float>(acc[t]) * s[t0 + t];
      } else {
        const float s0 = s[0];
        for (int64_t t = 0; t < len; ++t) v[t] = static_cast<float>(acc[t]) * s0;
      }
      if (bias != nullptr && bias_runs) {
        for (int64_t t = 0; t < len; ++t) v[t] = v[t] + bias[t0 + t];
      } else if (bias != nullptr) {
        const float b0 = bias[0];
        for (int64_t t = 0; t < len; ++t) v[t] = v[t] + b0;
      }
      if (exact) {
        for (int64_t t = 0; t < len; ++t) v[t] = v[t] != v[t] ? canonical_nan() : v[t];
      }
      if (step != 1) {
        for (int64_t t = 0; t < len; ++t) out[(t0 + t) * step] = v[t];
      }
    }
  }

  // Int32 and Requantize: y[0 .. count) (parameters as in store_run) becomes the integers to store.
  void convert_integers(int32_t* y, int64_t count, int64_t col0, bool across_columns) const {
    const int32_t* bias = bias_i32 != nullptr ? bias_i32 + (bias_per_col ? col0 : 0) : nullptr;
    const bool bias_runs = bias_per_col && across_columns;
    const float* m = mult + (mult_per_col ? col0 : 0);
    const bool mult_runs = mult_per_col && across_columns;
    int64_t done = 0;  // values already converted, bias included
#if defined(ONEMODEL_INT8_VECTOR_REQUANTIZE)
    if (epilogue == Int8Epilogue::Requantize)
      done = requantize_vectors(y, count, bias, bias_runs, m, mult_runs, y_zero, y_signed);
#endif
    if (bias != nullptr && bias_runs) {
      for (int64_t t = done; t < count; ++t)
        y[t] = static_cast<int32_t>(static_cast<uint32_t>(y[t]) + static_cast<uint32_t>(bias[t]));
    } else if (bias != nullptr) {
      const auto b0 = static_cast<uint32_t>(bias[0]);
      for (int64_t t = done; t < count; ++t) y[t] = static_cast<int32_t>(static_cast<uint32_t>(y[t]) + b0);
    }
    if (epilogue != Int8Epilogue::Requantize) return;
    const int32_t lowest = y_signed ? -128 : 0, highest = y_signed ? 127 : 255;
    if (mult_runs) {
      for (int64_t t = done; t < count; ++t)
        y[t] = requantize(static_cast<float>(y[t]) * m[t], y_zero, lowest, highest);
    } else {
      const float m0 = m[0];
      for (int64_t t = done; t < count; ++t)
        y[t] = requantize(static_cast<float>(y[t]) * m0, y_zero, lowest, highest);
    }
  }

  static constexpr int32_t kRounderBits = 0x4B400000;  // the bits of kRounder

#if defined(__AVX512BW__)
  // requantize() of acc * scale, 16 lanes at a time, as requantize_vectors describes.
  struct VectorRequantizer {
    __m512 low_bound = _mm512_set1_ps(-kBound), high_bound = _mm512_set1_ps(kBound);
    __m512 rounder = _mm512_set1_ps(kRounder);
    __m512i offset, lowest, highest;

    VectorRequantizer(int32_t y_zero, bool y_signed)
        // (bits - kRounderBits) + y_zero in one wrapping subtraction.
        : offset(_mm512_set1_epi32(
              static_cast<int32_t>(static_cast<uint32_t>(kRounderBits) - static_cast<uint32_t>(y_zero)))),
          lowest(_mm512_set1_epi32(y_signed ? -128 : 0)),
          highest(_mm512_set1_epi32(y_signed ? 127 : 255)) {}

    __m512i operator()(__m512i acc, __m512 scale) const {
      __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
      v = _mm512_min_ps(_mm512_max_ps(v, low_bound), high_bound);
      const __m512i q = _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(v, rounder)), offset);
      return _mm512_min_epi32(_mm512_max_epi32(q, lowest), highest);
    }
  };
#endif

#if defined(ONEMODEL_INT8_VECTOR_REQUANTIZE)
  // The bias and requantize() of y[t] * m[t] (bias[0], m[0] unless *_runs; no bias when null), a vector at a
  // time; returns how many values it converted (the 128-bit path: the whole quadruples of y; AVX-512: all,
  // the last vector masked). The steps of requantize(), except that the rounded value is read as an integer
  // from the bits of v + 1.5 * 2^23 (that sum lies in [2^23, 2^24), where consecutive floats are consecutive
  // integers and so are their bit patterns) instead of subtracting 1.5 * 2^23 and converting: the same
  // integer without a float-to-int conversion (Emscripten's SSE headers make that one a scalar loop). The
  // zero point joins the subtraction of the bits. maxps and minps keep their second operand on NaN, as
  // requantize()'s selects do.
  static int64_t requantize_vectors(int32_t* y, int64_t count, const int32_t* bias, bool bias_runs,
                                    const float* m, bool mult_runs, int32_t y_zero, bool y_signed) {
    const int32_t bias0 = bias != nullptr ? bias[0] : 0;
#if defined(__AVX512BW__)
    const VectorRequantizer requantizer(y_zero, y_signed);
    const __m512 m0 = _mm512_set1_ps(m[0]);
    const __m512i b0 = _mm512_set1_epi32(bias0);
    for (int64_t t = 0; t < count; t += 16) {
      const auto lanes = static_cast<__mmask16>(count - t >= 16 ? 0xFFFF : (1u << (count - t)) - 1);
      __m512i acc = _mm512_maskz_loadu_epi32(lanes, y + t);
      if (bias != nullptr)
        acc = _mm512_add_epi32(acc, bias_runs ? _mm512_maskz_loadu_epi32(lanes, bias + t) : b0);
      const __m512 scale = mult_runs ? _mm512_maskz_loadu_ps(lanes, m + t) : m0;
      _mm512_mask_storeu_epi32(y + t, lanes, requantizer(acc, scale));
    }
    return count;
#else
    // (bits - kRounderBits) + y_zero in one wrapping subtraction.
    const __m128i offset = _mm_set1_epi32(
        static_cast<int32_t>(static_cast<uint32_t>(kRounderBits) - static_cast<uint32_t>(y_zero)));
    const __m128 low_bound = _mm_set1_ps(-kBound), high_bound = _mm_set1_ps(kBound);
    const __m128 rounder = _mm_set1_ps(kRounder), m0 = _mm_set1_ps(m[0]);
    const __m128i b0 = _mm_set1_epi32(bias0);
    const __m128i low = _mm_set1_epi32(y_signed ? -128 : 0), high = _mm_set1_epi32(y_signed ? 127 : 255);
    int64_t t = 0;
    for (; t + 4 <= count; t += 4) {
      auto* at = reinterpret_cast<__m128i*>(y + t);
      __m128i acc = _mm_loadu_si128(at);
      if (bias != nullptr)
        acc =
            _mm_add_epi32(acc, bias_runs ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(bias + t)) : b0);
      const __m128 scale = mult_runs ? _mm_loadu_ps(m + t) : m0;
      __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(acc), scale);
#if defined(__wasm_simd128__)
      // f32x4.pmax and pmin (Emscripten 3.1.6's header lacks their wrappers): one instruction each, where
      // its _mm_max_ps and _mm_min_ps are a compare and a select; pmax(-2^20, NaN) is -2^20, as maxps gives.
      v = __builtin_wasm_pmin_f32x4(__builtin_wasm_pmax_f32x4(low_bound, v), high_bound);
#else
      v = _mm_min_ps(_mm_max_ps(v, low_bound), high_bound);
#endif
      const __m128i q = _mm_sub_epi32(_mm_castps_si128(_mm_add_ps(v, rounder)), offset);
      _mm_storeu_si128(at, _mm_min_epi32(_mm_max_epi32(q, low), high));
    }
    return t;
#endif
  }
#endif

  // Int32 and Requantize: value (i, j) of a converted rows x cols tile (row stride ld) goes to element
  // c_base + j * col_step + i, a column at a time (a channel-major output: each column is a run in memory).
  void write_integers_transposed(const int32_t* y, int64_t ld, int64_t rows, int64_t cols, int64_t c_base,
                                 int64_t col_step) const {
    with_integer_output([&](auto* out) { write_transposed(out + c_base, col_step, y, ld, rows, cols); });
  }

  // fn(c as a pointer to the stored integer type) for Int32 and Requantize.
  template <class F>
  void with_integer_output(const F& fn) const {
    if (epilogue == Int8Epilogue::Int32)
      fn(static_cast<int32_t*>(c));
    else if (y_signed)
      fn(static_cast<int8_t*>(c));
    else
      fn(static_cast<uint8_t*>(c));
  }

  static float canonical_nan() {
    const uint32_t bits = 0x7FC00000u;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }

  // out[j * col_step + i] = y[i * ld + j] narrowed to T, a column at a time.
  template <class T>
  static void write_transposed(T* out, int64_t col_step, const int32_t* y, int64_t ld, int64_t rows,
                               int64_t cols) {
    int64_t j0 = 0;  // the columns left to the plain loop
#if defined(ONEMODEL_INT8_SSE_TRANSPOSE)
    // 8-bit outputs: whole 16 x 16 blocks narrowed and transposed in registers (a tile's columns are 16 to 64
    // wide, its rows up to 48); the ragged edges below.
    if constexpr (sizeof(T) == 1) {
      const int64_t full_rows = rows / 16 * 16, full_cols = cols / 16 * 16;
      for (int64_t i = 0; i < full_rows; i += 16) {
        for (int64_t j = 0; j < full_cols; j += 16) {
          write_block_transposed<T>(out + j * col_step + i, col_step, y + i * ld + j, ld);
        }
      }
      for (int64_t j = 0; j < full_cols; ++j) {
        for (int64_t i = full_rows; i < rows; ++i) out[j * col_step + i] = static_cast<T>(y[i * ld + j]);
      }
      j0 = full_cols;
    }
#endif
    for (int64_t j = j0; j < cols; ++j) {
      for (int64_t i = 0; i < rows; ++i) out[j * col_step + i] = static_cast<T>(y[i * ld + j]);
    }
  }

#if defined(ONEMODEL_INT8_SSE_TRANSPOSE)
  // One 16 x 16 block: the rows narrowed to bytes (the values fit T, so the saturating packs change nothing;
  // AVX-512 truncates each row with one vpmovdb), then transposed by interleaving bytes, pairs, quads and
  // halves of row pairs.
  template <class T>
  static void write_block_transposed(T* out, int64_t col_step, const int32_t* y, int64_t ld) {
    __m128i r[16], t[16];
    for (int i = 0; i < 16; ++i) {
#if defined(__AVX512BW__)
      r[i] = _mm512_cvtepi32_epi8(_mm512_loadu_si512(y + i * ld));  // truncating: the values fit T
#else
      const auto* row = reinterpret_cast<const __m128i*>(y + i * ld);
      const __m128i lo = _mm_packs_epi32(_mm_loadu_si128(row), _mm_loadu_si128(row + 1));
      const __m128i hi = _mm_packs_epi32(_mm_loadu_si128(row + 2), _mm_loadu_si128(row + 3));
      r[i] = std::is_signed_v<T> ? _mm_packs_epi16(lo, hi) : _mm_packus_epi16(lo, hi);
#endif
    }
    for (int i = 0; i < 8; ++i) {  // t[i], t[8 + i]: rows 2i, 2i + 1, columns 0-7 and 8-15
      t[i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
      t[8 + i] = _mm_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; ++h) {  // r[4g + b]: columns 4g .. 4g + 3, rows 4b .. 4b + 3
      for (int i = 0; i < 4; ++i) {
        r[8 * h + i] = _mm_unpacklo_epi16(t[8 * h + 2 * i], t[8 * h + 2 * i + 1]);
        r[8 * h + 4 + i] = _mm_unpackhi_epi16(t[8 * h + 2 * i], t[8 * h + 2 * i + 1]);
      }
    }
    for (int g = 0; g < 4; ++g) {  // t[4g + ...]: column pairs of group g, rows 0-7 and 8-15
      t[4 * g] = _mm_unpacklo_epi32(r[4 * g], r[4 * g + 1]);
      t[4 * g + 1] = _mm_unpackhi_epi32(r[4 * g], r[4 * g + 1]);
      t[4 * g + 2] = _mm_unpacklo_epi32(r[4 * g + 2], r[4 * g + 3]);
      t[4 * g + 3] = _mm_unpackhi_epi32(r[4 * g + 2], r[4 * g + 3]);
    }
    for (int g = 0; g < 4; ++g) {  // column 4g + c, all 16 rows
      const __m128i columns[4] = {
          _mm_unpacklo_epi64(t[4 * g], t[4 * g + 2]), _mm_unpackhi_epi64(t[4 * g], t[4 * g + 2]),
          _mm_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]), _mm_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3])};
      for (int c = 0; c < 4; ++c)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (4 * g + c) * col_step), columns[c]);
    }
  }
#endif

  // out[t * step] = y[t] narrowed to T (y holds values T represents).
  template <class T>
  static void write(T* out, int64_t step, const int32_t* y, int64_t count) {
    if (step == 1) {
      for (int64_t t = 0; t < count; ++t) out[t] = static_cast<T>(y[t]);
    } else {
      for (int64_t t = 0; t < count; ++t) out[t * step] = static_cast<T>(y[t]);
    }
  }

  // round_half_even(v) + zp clamped to [lowest, highest]; NaN gives lowest. v is bounded to +-2^20 first (far
  // outside every 8-bit range; the comparisons are written so that NaN fails them and becomes -2^20, which
  // the final clamp takes to lowest), then (v + 1.5 * 2^23) - 1.5 * 2^23 rounds it to an integer, ties to
  // even: the sum lies in [2^23, 2^24), where floats are the integers, and the subtraction is exact. The zero
  // point and the clamp are integer operations on the exact result. Each step is one vector instruction
  // (maxps and minps keep their second operand on NaN, as these selects do).
  static constexpr float kBound = 1048576.0f, kRounder = 12582912.0f;
  static int32_t requantize(float v, int32_t zp, int32_t lowest, int32_t highest) {
    v = v > -kBound ? v : -kBound;
    v = v < kBound ? v : kBound;
    v = (v + kRounder) - kRounder;
    int32_t q = static_cast<int32_t>(v) + zp;
    q = q < lowest ? lowest : q;
    return q > highest ? highest : q;
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

// The quantization loops of kernels/int8/quantize_kernels.h over one path's lanes, instantiated per path by
// src/kernels/paths/instantiate.inc. The steps are those of ops::quant::quantize_value (graph/ops/quant/
// quant_common.h, where they are explained), each a correctly rounded float32 operation or an exact one, so
// every path and every lane position gives its bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "kernels/cpu.h"
#include "kernels/int8/quantize_kernels.h"
#include "kernels/simd.h"

#if defined(__SSE4_1__)
#include <immintrin.h>
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

template <class L>
struct QuantizeImpl {
  using F = typename L::F;

  // clamp(round_half_even(x / scale) + zero_point) to [lowest, highest] as an integral float; NaN: lowest.
  static F quantize_lanes(F x, F scale, F zero_point, F lowest, F highest) {
    const F bound = L::splat(1048576.0f), neg_bound = L::splat(-1048576.0f), rounder = L::splat(12582912.0f);
    const F q = x / scale;
    const auto is_nan = L::is_nan(q);
    F v = L::select(q < neg_bound, neg_bound, q);
    v = L::select(v > bound, bound, v);
    v = L::select(is_nan, L::splat(0.0f), v);
    v = (v + rounder) - rounder;
    v = v + zero_point;
    v = L::select(v < lowest, lowest, v);
    v = L::select(v > highest, highest, v);
    return L::select(is_nan, lowest, v);
  }

  static constexpr float kToBits = 12582912.0f;

#if defined(__SSE4_1__) && !defined(__AVX2__)
  // q clamped to [low, high], NaN taking low: (low < q ? q : low), then (c < high ? c : high). These are the
  // x86 maxps/minps and wasm's f32x4.pmax/pmin exactly (Emscripten's _mm_max_ps is a compare and a blend).
  static __m128 clamp_lanes(__m128 q, __m128 low, __m128 high) {
#if defined(__wasm_simd128__)
    return wasm_f32x4_pmin(high, wasm_f32x4_pmax(low, q));
#else
    return _mm_min_ps(_mm_max_ps(q, low), high);
#endif
  }
#endif

  template <class Q>
  static void quantize(const float* x, float scale, float zero_point, Q* y, size_t n) {
    using T = typename L::Tail;
    constexpr auto kLowest = static_cast<float>(std::numeric_limits<Q>::min());
    constexpr auto kHighest = static_cast<float>(std::numeric_limits<Q>::max());
    const F s = L::splat(scale), z = L::splat(zero_point), lowest = L::splat(kLowest),
            highest = L::splat(kHighest);
    // The lanes hold 8-bit integers q. Plus 1.5 * 2^23 (exact: the sum lies in [2^23, 2^24), where floats are
    // the integers), a lane's float bits are 0x4B400000 + q, whose low byte is q in two's complement:
    // narrowing is then an integer truncation instead of a float-to-int conversion per element (a branchy
    // scalar sequence on wasm).
    const F to_bits = L::splat(kToBits);
    alignas(64) float values[L::width];
    size_t i = 0;
#if defined(__SSE4_1__) && !defined(__AVX2__)
    // The 128-bit path (wasm's): sixteen values at a time, in fewer operations than quantize_lanes, with the
    // same integers. q is clamped to [lowest - zero_point, highest - zero_point] (integers) before rounding
    // instead of to +-2^20 before and to [lowest, highest] after: rounding is monotonic and keeps integers,
    // so both give round(q) + zero_point clamped alike. The first clamp takes the lower bound when q is NaN
    // (its comparison fails), which yields lowest as required. The rounded value is read as an integer from
    // the bits of c + 1.5 * 2^23 (0x4B400000 + round(c), |c| < 2^8), the zero point added as an integer, and
    // the low bytes narrowed in registers (masked to 0-255, so the unsigned saturating packs keep them).
    if constexpr (L::width == 4) {
      const __m128 low_bound = _mm_set1_ps(kLowest - zero_point),
                   high_bound = _mm_set1_ps(kHighest - zero_point);
      const __m128 scale_v = _mm_set1_ps(scale), rounder = _mm_set1_ps(kToBits);
      const __m128i zero_point_i = _mm_set1_epi32(static_cast<int32_t>(zero_point)),
                    low_byte = _mm_set1_epi32(0xFF);
      const auto bytes = [&](size_t at) {
        const __m128 q = _mm_div_ps(_mm_loadu_ps(x + at), scale_v);
        const __m128 c = clamp_lanes(q, low_bound, high_bound);
        const __m128i bits = _mm_add_epi32(_mm_castps_si128(_mm_add_ps(c, rounder)), zero_point_i);
        return _mm_and_si128(bits, low_byte);
      };
      for (; i + 16 <= n; i += 16) {
        const __m128i low = _mm_packus_epi32(bytes(i), bytes(i + 4));
        const __m128i high = _mm_packus_epi32(bytes(i + 8), bytes(i + 12));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm_packus_epi16(low, high));
      }
    }
#endif
#if defined(__AVX512BW__)
    // AVX-512: a vector's low bytes narrowed by one truncating vpmovdb instead of a scalar store per value.
    if constexpr (L::width == 16) {
      for (; i + 16 <= n; i += 16) {
        const F v = quantize_lanes(L::load(x + i), s, z, lowest, highest) + to_bits;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                         _mm512_cvtepi32_epi8(_mm512_castps_si512(static_cast<__m512>(v))));
      }
    }
#endif
    for (; i + L::width <= n; i += L::width) {
      L::store(values, quantize_lanes(L::load(x + i), s, z, lowest, highest) + to_bits);
      for (int l = 0; l < L::width; ++l) y[i + l] = static_cast<Q>(simd::float_to_bits(values[l]));
    }
    for (; i < n; ++i) {
      const float v = QuantizeImpl<T>::quantize_lanes(x[i], scale, zero_point, kLowest, kHighest);
      y[i] = static_cast<Q>(simd::float_to_bits(v + kToBits));
    }
  }

  // The difference is exact in int32 and as a float; the product is the one rounding.
  template <class X>
  static void dequantize(const X* x, int32_t zero_point, float scale, float* y, size_t n) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
  }

  // Minimum and maximum are exact in any order: both start at +0, a NaN fails every comparison, and lo (hi)
  // only ever holds +0 or negative (positive) values, so no two candidates compare equal with other bits.
  // Four vectors of candidates at a time, so that the compare-and-select chains overlap.
  static void range(const float* x, size_t n, float* lo_out, float* hi_out) {
    constexpr int kChains = 4;
    F lo[kChains], hi[kChains];
    for (int c = 0; c < kChains; ++c) lo[c] = hi[c] = L::splat(0.0f);
    size_t i = 0;
    for (; i + kChains * L::width <= n; i += kChains * L::width) {
      for (int c = 0; c < kChains; ++c) {
        const F v = L::load(x + i + c * L::width);
        lo[c] = L::lower_to(lo[c], v);
        hi[c] = L::raise_to(hi[c], v);
      }
    }
    for (; i + L::width <= n; i += L::width) {
      const F v = L::load(x + i);
      lo[0] = L::lower_to(lo[0], v);
      hi[0] = L::raise_to(hi[0], v);
    }
    float l = 0.0f, h = 0.0f;
    for (int c = 0; c < kChains; ++c) {
      alignas(64) float lo_lanes[L::width], hi_lanes[L::width];
      L::store(lo_lanes, lo[c]);
      L::store(hi_lanes, hi[c]);
      for (int t = 0; t < L::width; ++t) {
        l = lo_lanes[t] < l ? lo_lanes[t] : l;
        h = hi_lanes[t] > h ? hi_lanes[t] : h;
      }
    }
    for (; i < n; ++i) {
      l = x[i] < l ? x[i] : l;
      h = x[i] > h ? x[i] : h;
    }
    *lo_out = l;
    *hi_out = h;
  }
};

#if defined(__AVX512BW__)
// 64 bytes at once with AVX512-VBMI: vpermi2b looks each byte's low seven bits up in one half of the table
// (two registers each), its top bit picks the half. These two functions alone are compiled for VBMI; they run
// only where the CPU has it.
__attribute__((target("avx512vbmi"))) inline __m512i byte_lookup_vbmi_step(__m512i v, const __m512i* t) {
  const __m512i low = _mm512_permutex2var_epi8(t[0], v, t[1]), high = _mm512_permutex2var_epi8(t[2], v, t[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high);
}

__attribute__((target("avx512vbmi"))) inline void byte_lookup_vbmi(const uint8_t* x, const uint8_t* table,
                                                                   uint8_t* y, size_t n) {
  const __m512i t[4] = {_mm512_loadu_si512(table), _mm512_loadu_si512(table + 64),
                        _mm512_loadu_si512(table + 128), _mm512_loadu_si512(table + 192)};
  size_t i = 0;
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(y + i, byte_lookup_vbmi_step(_mm512_loadu_si512(x + i), t));
  if (i < n) {  // the tail through masked loads and stores
    const __mmask64 tail = (uint64_t{1} << (n - i)) - 1;
    _mm512_mask_storeu_epi8(y + i, tail, byte_lookup_vbmi_step(_mm512_maskz_loadu_epi8(tail, x + i), t));
  }
}
#endif

// y[i] = table[x[i]] (QuantizeKernels::lookup); the AVX-512 path takes vpermi2b where the CPU has VBMI.
inline void byte_lookup(const uint8_t* x, const uint8_t* table, uint8_t* y, size_t n) {
#if defined(__AVX512BW__)
  static const bool vbmi = cpu_has_avx512_vbmi();
  if (vbmi) return byte_lookup_vbmi(x, table, y, n);
#endif
  for (size_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

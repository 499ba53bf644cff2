// The direct depthwise int8 kernel (int8.md "Convolution"), written once and instantiated per kernel path by
// src/kernels/paths/instantiate.inc; only the vector operations of the row loop differ per path.
//
// Arithmetic. Inputs and weights move to int16 by subtracting their zero points (x - x_zero and w - w_zero
// both lie within +-255); padding reads 0, so it adds nothing. An output is the int32 sum of its taps'
// products. Each product and each pair of products is an integer int32 holds, and sums wrap the same way on
// every path (unsigned arithmetic in scalar code), so neither the order of the sum nor the lane width can
// change a bit. The sums then go through the product kernel's epilogue (int8_output.h).
//
// Layout. As in the float depthwise kernel (kernels-depthwise.md): the shifted, zero-padded input plane is
// split by column phase into stride_w planes (phase p holds padded columns p, p + stride_w, ...), so one tap
// of neighbouring outputs of a row reads contiguous values. x86 and wasm take two taps per step: the int16
// inputs of taps t and t + 1 are interleaved and meet the weight pair (w[t], w[t + 1]) in one 16-bit
// pair-product instruction (pmaddwd / i32x4.dot_i16x8_s), which cannot overflow at these magnitudes; NEON
// widens each tap with vmlal. A row is computed in blocks of four vectors of outputs, then single vectors,
// the last one moved back to end at the last column (recomputing some outputs with the same values); a row
// narrower than a vector uses the next narrower width, down to the scalar loop.
//
// Chunks. clamp(4096 / output plane size, 1, 32) planes, a constant of the shape. Each thread's scratch slot
// holds the phase planes, the current channel's taps and the int32 sums of a block of output rows (about
// 1024 sums): the epilogue converts a block per call, so its loops run at full vector width even when a row
// is narrower than a vector (a 16-wide row would otherwise leave AVX-512's narrowing loop to its scalar
// tail).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "kernels/int8/int8_output.h"
#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#elif defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE4_1__)
#include <smmintrin.h>
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

// One output at a time; also the end of every narrower-width chain.
struct Int8DwScalar {
  static void row(const int16_t* origin, const int64_t* tap, const int16_t* w, int64_t taps, int64_t count,
                  int32_t* out) {
    for (int64_t ox = 0; ox < count; ++ox) out[ox] = 0;
    for (int64_t t = 0; t < taps; ++t) {
      const int32_t wt = w[t];
      const int16_t* src = origin + tap[t];
      for (int64_t ox = 0; ox < count; ++ox) {
        out[ox] = static_cast<int32_t>(static_cast<uint32_t>(out[ox]) + static_cast<uint32_t>(wt * src[ox]));
      }
    }
  }
};

inline int32_t int8_dw_weight_pair(const int16_t* w) {
  int32_t pair;
  std::memcpy(&pair, w, 4);  // w[0] in the low half: it meets the first tap's input
  return pair;
}

// The vector operations of a path, V: `lanes` outputs per vector step (as two accumulators Acc); `accumulate`
// adds the products of taps t and t + 1 (inputs at s0 and s1) to them; `store` writes the lanes in order;
// Narrower is the next narrower operations or void for the scalar loop.
template <class V>
struct Int8DwVector {
  static void row(const int16_t* origin, const int64_t* tap, const int16_t* w, int64_t taps, int64_t count,
                  int32_t* out) {
    constexpr int64_t kLanes = V::lanes;
    if (count < kLanes) {
      if constexpr (std::is_void_v<typename V::Narrower>)
        Int8DwScalar::row(origin, tap, w, taps, count, out);
      else
        Int8DwVector<typename V::Narrower>::row(origin, tap, w, taps, count, out);
      return;
    }
    int64_t ox = 0;
    for (; ox + 4 * kLanes <= count; ox += 4 * kLanes) block<4>(origin + ox, tap, w, taps, out + ox);
    for (; ox + kLanes <= count; ox += kLanes) block<1>(origin + ox, tap, w, taps, out + ox);
    if (ox < count) block<1>(origin + count - kLanes, tap, w, taps, out + count - kLanes);
  }

 private:
  // kVecs vectors of outputs from `origin` over all taps (an even count).
  template <int kVecs>
  static void block(const int16_t* origin, const int64_t* tap, const int16_t* w, int64_t taps, int32_t* out) {
    typename V::Acc acc[kVecs][2];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) acc[v][0] = acc[v][1] = V::zero();
    for (int64_t t = 0; t < taps; t += 2) {
      const auto pair = V::weights(w + t);
      const int16_t* s0 = origin + tap[t];
      const int16_t* s1 = origin + tap[t + 1];
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) V::accumulate(acc[v], s0 + v * V::lanes, s1 + v * V::lanes, pair);
    }
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) V::store(out + v * V::lanes, acc[v]);
  }
};

#if defined(__SSE4_1__)
// 8 outputs: SSE4.1 on x86, wasm SIMD128 through Emscripten's SSE headers (pmaddwd is i32x4.dot_i16x8_s).
struct Int8DwSse {
  using Narrower = void;
  using Acc = __m128i;
  static constexpr int64_t lanes = 8;
  static __m128i zero() { return _mm_setzero_si128(); }
  static __m128i weights(const int16_t* w) { return _mm_set1_epi32(int8_dw_weight_pair(w)); }
  static void accumulate(__m128i* acc, const int16_t* s0, const int16_t* s1, __m128i pair) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s0));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s1));
    acc[0] = _mm_add_epi32(acc[0], _mm_madd_epi16(_mm_unpacklo_epi16(a, b), pair));
    acc[1] = _mm_add_epi32(acc[1], _mm_madd_epi16(_mm_unpackhi_epi16(a, b), pair));
  }
  static void store(int32_t* out, const __m128i* acc) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), acc[0]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4), acc[1]);
  }
};
#endif

#if defined(__AVX2__)
// 16 outputs. The unpacks work within 128-bit halves, so acc[0] holds outputs 0-3 and 8-11, acc[1] 4-7 and
// 12-15; the store puts them in order.
struct Int8DwAvx2 {
  using Narrower = Int8DwSse;
  using Acc = __m256i;
  static constexpr int64_t lanes = 16;
  static __m256i zero() { return _mm256_setzero_si256(); }
  static __m256i weights(const int16_t* w) { return _mm256_set1_epi32(int8_dw_weight_pair(w)); }
  static void accumulate(__m256i* acc, const int16_t* s0, const int16_t* s1, __m256i pair) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s0));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s1));
    acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), pair));
    acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), pair));
  }
  static void store(int32_t* out, const __m256i* acc) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(acc[0], acc[1], 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8), _mm256_permute2x128_si256(acc[0], acc[1], 0x31));
  }
};
#endif

#if defined(__AVX512BW__)
// 32 outputs; as AVX2 with four 128-bit quarters, reordered by 64-bit halves of each quarter on store.
struct Int8DwAvx512 {
  using Narrower = Int8DwAvx2;
  using Acc = __m512i;
  static constexpr int64_t lanes = 32;
  static __m512i zero() { return _mm512_setzero_si512(); }
  static __m512i weights(const int16_t* w) { return _mm512_set1_epi32(int8_dw_weight_pair(w)); }
  static void accumulate(__m512i* acc, const int16_t* s0, const int16_t* s1, __m512i pair) {
    const __m512i a = _mm512_loadu_si512(s0);
    const __m512i b = _mm512_loadu_si512(s1);
    acc[0] = _mm512_add_epi32(acc[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), pair));
    acc[1] = _mm512_add_epi32(acc[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), pair));
  }
  static void store(int32_t* out, const __m512i* acc) {
    // 64-bit indexes: 0-7 pick from acc[0], 8-15 from acc[1].
    const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const __m512i second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    _mm512_storeu_si512(out, _mm512_permutex2var_epi64(acc[0], first, acc[1]));
    _mm512_storeu_si512(out + 16, _mm512_permutex2var_epi64(acc[0], second, acc[1]));
  }
};
#endif

#if defined(__aarch64__)
// 8 outputs: each tap widened and multiplied by its weight with vmlal (NEON has no pair product of int16).
struct Int8DwNeon {
  using Narrower = void;
  using Acc = int32x4_t;
  struct Pair {
    int16_t w0, w1;
  };
  static constexpr int64_t lanes = 8;
  static int32x4_t zero() { return vdupq_n_s32(0); }
  static Pair weights(const int16_t* w) { return {w[0], w[1]}; }
  static void accumulate(int32x4_t* acc, const int16_t* s0, const int16_t* s1, Pair pair) {
    const int16x8_t a = vld1q_s16(s0), b = vld1q_s16(s1);
    acc[0] = vmlal_n_s16(vmlal_n_s16(acc[0], vget_low_s16(a), pair.w0), vget_low_s16(b), pair.w1);
    acc[1] = vmlal_high_n_s16(vmlal_high_n_s16(acc[1], a, pair.w0), b, pair.w1);
  }
  static void store(int32_t* out, const int32x4_t* acc) {
    vst1q_s32(out, acc[0]);
    vst1q_s32(out + 4, acc[1]);
  }
};
#endif

// The row loop of each path.
template <KernelPath P>
struct Int8DwRow {
  using type = Int8DwScalar;
};
#if defined(__SSE4_1__)
template <>
struct Int8DwRow<KernelPath::V128> {
  using type = Int8DwVector<Int8DwSse>;
};
#elif defined(__aarch64__)
template <>
struct Int8DwRow<KernelPath::V128> {
  using type = Int8DwVector<Int8DwNeon>;
};
#endif
#if defined(__AVX2__)
template <>
struct Int8DwRow<KernelPath::Avx2> {
  using type = Int8DwVector<Int8DwAvx2>;
};
#endif
#if defined(__AVX512BW__)
template <>
struct Int8DwRow<KernelPath::Avx512> {
  using type = Int8DwVector<Int8DwAvx512>;
};
#endif

template <KernelPath P>
struct Int8DepthwiseImpl {
  using Row = typename Int8DwRow<P>::type;
  static constexpr int64_t kAlign = 64;
  static constexpr int64_t kPlaneAlign = 32;  // int16 elements: 64 bytes
  // Work estimates in nanoseconds on one thread.
  static constexpr double kNsPerTapPerOutput = 1.0 / 16.0, kNsPerPadded = 0.5;
  static constexpr int64_t kBlockSums = 1024;  // the epilogue's block: whole rows, at least one

  static constexpr int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
  static constexpr int64_t ceil_div(int64_t x, int64_t d) { return (x + d - 1) / d; }

  static size_t scratch_bytes(const Int8DepthwiseArgs& a, const ThreadContext& threads) {
    if (empty(a)) return 0;
    return static_cast<size_t>(kAlign) + static_cast<size_t>(thread_slots(threads)) * slot_bytes(layout(a));
  }

  static void run(const Int8DepthwiseArgs& a, void* scratch, const ThreadContext& threads) {
    if (empty(a)) return;
    const Layout l = layout(a);
    std::unique_ptr<std::byte[]> owned;
    if (scratch == nullptr) {
      owned.reset(new std::byte[scratch_bytes(a, threads)]);
      scratch = owned.get();
    }
    std::byte* slots = align(static_cast<std::byte*>(scratch));
    const size_t slot_size = slot_bytes(l);
    const int64_t out_plane = a.out_h * a.geometry.out_w;
    const int64_t per_chunk = std::max<int64_t>(1, std::min<int64_t>(32, 4096 / out_plane));
    const double plane_ns = static_cast<double>(out_plane * l.taps) * kNsPerTapPerOutput +
                            static_cast<double>(l.padded_h * l.padded_w) * kNsPerPadded;
    const auto body = [&](int64_t chunk, int slot) {
      const int64_t first = chunk * per_chunk, end = std::min(first + per_chunk, a.planes);
      run_planes(a, l, first, end, slots + static_cast<size_t>(slot) * slot_size);
    };
    parallel_for_slots(threads, ceil_div(a.planes, per_chunk), body,
                       plane_ns * static_cast<double>(a.planes));
  }

 private:
  // The padded region the taps reach, its phase planes (int16 elements) and the tap count rounded up to even.
  struct Layout {
    int64_t padded_h, padded_w, phases, phase_w, plane_elems, taps, taps_even, out_w, block_rows;
  };

  static bool empty(const Int8DepthwiseArgs& a) {
    return a.planes <= 0 || a.out_h <= 0 || a.geometry.out_w <= 0;
  }

  static Layout layout(const Int8DepthwiseArgs& a) {
    const Int8ConvA& g = a.geometry;
    Layout l;
    l.padded_h = (a.out_h - 1) * g.stride_h + (g.kernel_h - 1) * g.dilation_h + 1;
    l.padded_w = (g.out_w - 1) * g.stride_w + (g.kernel_w - 1) * g.dilation_w + 1;
    l.phases = g.stride_w;
    l.phase_w = ceil_div(l.padded_w, g.stride_w);
    l.plane_elems = round_up(l.padded_h * l.phase_w, kPlaneAlign);
    l.taps = g.kernel_h * g.kernel_w;
    l.taps_even = round_up(l.taps, 2);
    l.out_w = g.out_w;
    l.block_rows = std::max<int64_t>(1, std::min<int64_t>(a.out_h, kBlockSums / g.out_w));
    return l;
  }

  // Phase planes, tap offsets (int64), weights (int16) and a block of rows of sums (int32), each 64-byte
  // aligned.
  static int64_t phases_bytes(const Layout& l) { return round_up(l.phases * l.plane_elems * 2, kAlign); }
  static int64_t taps_bytes(const Layout& l) { return round_up(l.taps_even * 8, kAlign); }
  static int64_t weights_bytes(const Layout& l) { return round_up(l.taps_even * 2, kAlign); }
  static size_t slot_bytes(const Layout& l) {
    return static_cast<size_t>(phases_bytes(l) + taps_bytes(l) + weights_bytes(l) +
                               round_up(l.block_rows * l.out_w * 4, kAlign));
  }

  static std::byte* align(std::byte* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p + (round_up(static_cast<int64_t>(address), kAlign) - static_cast<int64_t>(address));
  }

  static int32_t raw(const void* data, bool is_signed, int64_t i) {
    return is_signed ? static_cast<int32_t>(static_cast<const int8_t*>(data)[i])
                     : static_cast<int32_t>(static_cast<const uint8_t*>(data)[i]);
  }

  // dst[j] = src[j] - zero for j < n; 8 values per vector step where the path has SSE4.1's widening loads
  // (the compilers leave this short loop scalar).
  template <class T>
  static void widen_run(const T* src, int64_t n, int32_t zero, int16_t* dst) {
    int64_t j = 0;
#if defined(__SSE4_1__)
    const __m128i z = _mm_set1_epi16(static_cast<int16_t>(zero));
    for (; j + 8 <= n; j += 8) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + j));
      const __m128i wide = std::is_signed_v<T> ? _mm_cvtepi8_epi16(bytes) : _mm_cvtepu8_epi16(bytes);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j), _mm_sub_epi16(wide, z));
    }
#endif
    for (; j < n; ++j) dst[j] = static_cast<int16_t>(src[j] - zero);
  }

  // Writes input plane x (in_h x in_w) minus `zero` into the phase planes; cells outside the input get 0.
  template <class T>
  static void build_phases(const Int8DepthwiseArgs& a, const Layout& l, const T* x, int32_t zero,
                           int16_t* phases) {
    const Int8ConvA& g = a.geometry;
    const int64_t sw = g.stride_w;
    for (int64_t p = 0; p < sw; ++p) {
      // Phase column j is input column first + j * sw; the columns inside the input are [lo, hi).
      const int64_t first = p - g.pad_left;
      int64_t lo = first >= 0 ? 0 : ceil_div(-first, sw);
      int64_t hi = g.in_w - first <= 0 ? 0 : ceil_div(g.in_w - first, sw);
      hi = std::min(hi, l.phase_w);
      lo = std::min(lo, hi);
      int16_t* plane = phases + p * l.plane_elems;
      for (int64_t r = 0; r < l.padded_h; ++r) {
        int16_t* dst = plane + r * l.phase_w;
        const int64_t in_row = r - g.pad_top;
        if (in_row < 0 || in_row >= g.in_h) {
          for (int64_t j = 0; j < l.phase_w; ++j) dst[j] = 0;
          continue;
        }
        for (int64_t j = 0; j < lo; ++j) dst[j] = 0;
        // src is the input cell of phase column lo, formed only when it exists.
        const T* src = lo < hi ? x + in_row * g.in_w + (first + lo * sw) : nullptr;
        if (sw == 1) {
          widen_run(src, hi - lo, zero, dst + lo);
        } else {
          for (int64_t j = 0; j < hi - lo; ++j) dst[lo + j] = static_cast<int16_t>(src[j * sw] - zero);
        }
        for (int64_t j = hi; j < l.phase_w; ++j) dst[j] = 0;
      }
    }
  }

  static void run_planes(const Int8DepthwiseArgs& a, const Layout& l, int64_t first, int64_t end,
                         std::byte* slot) {
    const Int8ConvA& g = a.geometry;
    auto* phases = reinterpret_cast<int16_t*>(slot);
    auto* tap = reinterpret_cast<int64_t*>(slot + phases_bytes(l));
    auto* w = reinterpret_cast<int16_t*>(slot + phases_bytes(l) + taps_bytes(l));
    auto* sums = reinterpret_cast<int32_t*>(slot + phases_bytes(l) + taps_bytes(l) + weights_bytes(l));
    // Offset of each tap from the top-left tap of output (oy, 0): phase dx % sw, column dx / sw. An odd tap
    // count gets a last tap with weight 0, so the vector loops take taps in pairs.
    for (int64_t ky = 0, t = 0; ky < g.kernel_h; ++ky) {
      for (int64_t kx = 0; kx < g.kernel_w; ++kx, ++t) {
        const int64_t dx = kx * g.dilation_w;
        tap[t] = dx % g.stride_w * l.plane_elems + ky * g.dilation_h * l.phase_w + dx / g.stride_w;
      }
    }
    if (l.taps_even > l.taps) tap[l.taps] = tap[0], w[l.taps] = 0;
    const int32_t x_zero = a.x_zero != nullptr ? raw(a.x_zero, a.x_signed, 0) : 0;
    const int64_t in_plane = g.in_h * g.in_w, out_w = g.out_w, out_plane = a.out_h * out_w;
    for (int64_t q = first; q < end; ++q) {
      const int64_t c = q % a.channels;
      if (a.x_signed)
        build_phases(a, l, static_cast<const int8_t*>(a.x) + q * in_plane, x_zero, phases);
      else
        build_phases(a, l, static_cast<const uint8_t*>(a.x) + q * in_plane, x_zero, phases);
      const int32_t w_zero =
          a.w_zero != nullptr ? raw(a.w_zero, a.w_signed, a.w_zero_per_channel ? c : 0) : 0;
      for (int64_t t = 0; t < l.taps; ++t)
        w[t] = static_cast<int16_t>(raw(a.w, a.w_signed, c * l.taps + t) - w_zero);
      const Int8Output output = output_of(a, c);
      for (int64_t oy0 = 0; oy0 < a.out_h; oy0 += l.block_rows) {
        const int64_t rows = std::min(l.block_rows, a.out_h - oy0);
        for (int64_t r = 0; r < rows; ++r)
          Row::row(phases + (oy0 + r) * g.stride_h * l.phase_w, tap, w, l.taps_even, out_w, sums + r * out_w);
        output.store(sums, q * out_plane + oy0 * out_w, 0, rows * out_w);
      }
    }
  }

  // The epilogue of channel c: its parameters read as single values.
  static Int8Output output_of(const Int8DepthwiseArgs& a, int64_t c) {
    Int8Output out;
    out.epilogue = a.epilogue;
    out.c = a.y;
    out.bias_i32 = a.bias_i32 != nullptr ? a.bias_i32 + c : nullptr;
    out.bias_f32 = a.bias_f32 != nullptr ? a.bias_f32 + c : nullptr;
    out.bias_per_col = false;
    if (a.mult != nullptr) out.mult = a.mult + (a.mult_per_channel ? c : 0);
    if (a.scale != nullptr) out.scale = a.scale + (a.scale_per_channel ? c : 0);
    out.y_zero = a.y_zero, out.y_signed = a.y_signed;
    out.exact = a.exact;
    return out;
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

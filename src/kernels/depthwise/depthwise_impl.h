// The depthwise convolution kernel family (kernels-depthwise.md), written once over a lanes type L and
// instantiated per kernel path by src/kernels/paths/instantiate.inc.
//
// Result. Output (q, oy, ox) is one accumulator from +0 that adds w[ky][kx] * x_padded[oy*sh + ky*dh][ox*sw +
// kx*dw] for the taps in row-major order, padding being real zeros. Exact flavour: product and sum round on
// their own and NaN is stored as 0x7FC00000 (exact-mode.md "Convolution" with one input channel). Fast
// flavour: L::fma per tap in the same order. The bias, when given, is one rounded addition after the last
// tap, exactly what ops-conv.md's separate bias pass would add.
//
// Layout. Lanes are neighbouring output columns of one row. The taps read the zero-padded input split by
// column phase: phase plane p holds padded columns p, p + sw, p + 2*sw, ..., so the tap at padded column
// ox*sw + dx is column ox + dx/sw of plane dx%sw, contiguous in ox. A stride-1 input that needs no padding is
// read in place; stride 2 is split by a deinterleave. Rows are computed four at a time (then the last one to
// three together) in blocks of vectors whose accumulators all share each tap's weight; the last block's last
// vector ends at the last column, recomputing up to a vector of outputs (same values) instead of a tail; rows
// narrower than one vector use the scalar twin.
// Kernels with more than kMaxTaps taps take a plain per-output loop.
//
// Chunks. A chunk is clamp(4096 / plane size, 1, 32) output planes, a constant of the shape. Phase planes
// live in the running thread's scratch slot and are rebuilt only when the input plane changes; their padding
// is written once per chunk.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "kernels/kernel_table.h"
#include "kernels/simd.h"
#include "threading/parallel_for.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

template <class L>
struct DepthwiseImpl {
  static constexpr int64_t kAlignFloats = 16;  // 64 bytes
  static constexpr int64_t kMaxTaps = 64;      // larger kernels take the plain per-output loop
  static constexpr double kNsPerTapPerOutput = 1.0 / 8.0, kNsPerPaddedFloat = 0.5;

  static constexpr int64_t round_up(int64_t x, int64_t multiple) {
    return (x + multiple - 1) / multiple * multiple;
  }
  static constexpr int64_t ceil_div(int64_t x, int64_t d) { return (x + d - 1) / d; }

  // The padded region the taps reach, and how it is stored.
  struct Layout {
    int64_t padded_h, padded_w, phase_w, row_stride, plane_floats;
    bool in_place;
  };

  static Layout layout(const DepthwiseArgs& a) {
    Layout l;
    l.padded_h = (a.out_h - 1) * a.stride_h + (a.kernel_h - 1) * a.dilation_h + 1;
    l.padded_w = (a.out_w - 1) * a.stride_w + (a.kernel_w - 1) * a.dilation_w + 1;
    l.in_place =
        a.stride_w == 1 && a.pad_top == 0 && a.pad_left == 0 && l.padded_h <= a.in_h && l.padded_w <= a.in_w;
    l.phase_w = ceil_div(l.padded_w, a.stride_w);
    l.row_stride = l.in_place ? a.in_w : l.phase_w;
    l.plane_floats = l.in_place ? 0 : round_up(l.padded_h * l.phase_w, kAlignFloats);
    return l;
  }

  static int64_t planes_per_chunk(const DepthwiseArgs& a) {
    const int64_t planes = 4096 / (a.out_h * a.out_w);
    return planes < 1 ? 1 : planes > 32 ? 32 : planes;
  }

  static size_t slot_floats(const DepthwiseArgs& a) {
    const Layout l = layout(a);
    return static_cast<size_t>(a.stride_w * l.plane_floats + kAlignFloats);
  }

  static size_t scratch_floats(const DepthwiseArgs& a, const ThreadContext& threads) {
    if (a.planes <= 0 || a.out_h <= 0 || a.out_w <= 0) return 0;
    return kAlignFloats + static_cast<size_t>(thread_slots(threads)) * slot_floats(a);
  }

  static void run(const DepthwiseArgs& a, float* scratch, const ThreadContext& threads) {
    if (a.planes <= 0 || a.out_h <= 0 || a.out_w <= 0) return;
    std::unique_ptr<float[]> owned;
    if (scratch == nullptr) {
      owned.reset(new float[scratch_floats(a, threads)]);
      scratch = owned.get();
    }
    float* slots = align(scratch);
    const Layout l = layout(a);
    const auto slot_size = static_cast<int64_t>(slot_floats(a));
    const int64_t per_chunk = planes_per_chunk(a), chunks = ceil_div(a.planes, per_chunk);
    const double plane_ns =
        static_cast<double>(a.out_h * a.out_w * a.kernel_h * a.kernel_w) * kNsPerTapPerOutput +
        static_cast<double>(l.padded_h * l.padded_w) * kNsPerPaddedFloat;
    const auto body = [&](int64_t chunk, int slot) {
      const int64_t first = chunk * per_chunk,
                    end = first + per_chunk < a.planes ? first + per_chunk : a.planes;
      if (a.exact)
        run_planes<true>(a, l, first, end, slots + slot * slot_size);
      else
        run_planes<false>(a, l, first, end, slots + slot * slot_size);
    };
    parallel_for_slots(threads, chunks, body, plane_ns * static_cast<double>(a.planes));
  }

 private:
  static float* align(float* p) {
    const auto address = reinterpret_cast<uintptr_t>(p);
    return p +
           (round_up(static_cast<int64_t>(address), kAlignFloats * 4) - static_cast<int64_t>(address)) / 4;
  }

  // Writes the phase planes of input plane `x` (in_h x in_w) into `phases`. The padding cells sit at the same
  // places for every plane, so they are written only when `borders` is set (the slot's first plane); later
  // planes overwrite the input cells alone.
  static void build_phases(const DepthwiseArgs& a, const Layout& l, const float* x, float* phases,
                           bool borders) {
    const int64_t sw = a.stride_w;
    // Input rows [row_lo, row_hi) of the padded rows; phase p's input columns are [lo[p], hi[p]).
    const int64_t row_lo = a.pad_top < l.padded_h ? a.pad_top : l.padded_h;
    const int64_t row_hi = a.pad_top + a.in_h < l.padded_h ? a.pad_top + a.in_h : l.padded_h;
    int64_t lo[8], hi[8];
    for (int64_t p = 0; p < sw; ++p) {
      // Phase column j is input column p + j*sw - pad_left.
      const int64_t first_col = p - a.pad_left;
      lo[p] = first_col >= 0 ? 0 : ceil_div(-first_col, sw);
      hi[p] = a.in_w - first_col <= 0 ? 0 : ceil_div(a.in_w - first_col, sw);
      if (hi[p] > l.phase_w) hi[p] = l.phase_w;
      if (lo[p] > hi[p]) lo[p] = hi[p];
      if (!borders) continue;
      float* plane = phases + p * l.plane_floats;
      for (int64_t r = 0; r < l.padded_h; ++r) {
        // A padding row is all zeros; an input row has zeros before lo[p] and from hi[p] on.
        float* dst = plane + r * l.phase_w;
        const bool inside = r >= row_lo && r < row_hi;
        const int64_t left = inside ? lo[p] : l.phase_w, right = inside ? hi[p] : l.phase_w;
        for (int64_t j = 0; j < left; ++j) dst[j] = 0.0f;
        for (int64_t j = right; j < l.phase_w; ++j) dst[j] = 0.0f;
      }
    }
    // Stride 2 splits both phases in one pass over the columns where both read the input: a deinterleave
    // the compiler turns into shuffles. Other strides and the ends copy column by column.
    const bool pair = sw == 2 && std::max(lo[0], lo[1]) < std::min(hi[0], hi[1]);
    const int64_t pair_lo = pair ? std::max(lo[0], lo[1]) : 0, pair_hi = pair ? std::min(hi[0], hi[1]) : 0;
    for (int64_t r = row_lo; r < row_hi; ++r) {
      const float* src = x + (r - a.pad_top) * a.in_w - a.pad_left;  // padded column c is src[c]
      float* row = phases + r * l.phase_w;
      if (sw == 1) {
        // Short rows: vectors then single floats beat a memcpy call (and Emscripten left the plain loop
        // scalar).
        int64_t j = lo[0];
        for (; j + L::width <= hi[0]; j += L::width) L::store(row + j, L::load(src + j));
        for (; j < hi[0]; ++j) row[j] = src[j];
        continue;
      }
      if (pair)
        deinterleave(src + 2 * pair_lo, pair_hi - pair_lo, row + pair_lo, row + l.plane_floats + pair_lo);
      for (int64_t p = 0; p < sw; ++p) {
        float* dst = row + p * l.plane_floats;
        const float* s = src + p;
        for (int64_t j = lo[p]; j < (pair ? pair_lo : hi[p]); ++j) dst[j] = s[j * sw];
        for (int64_t j = pair ? pair_hi : hi[p]; j < hi[p]; ++j) dst[j] = s[j * sw];
      }
    }
  }

  // Four pairs at a time through two shuffles of 16-byte vectors, written out because Emscripten left the
  // plain loop scalar.
  static void deinterleave(const float* __restrict src, int64_t count, float* __restrict even,
                           float* __restrict odd) {
    using Quad = float __attribute__((vector_size(16)));
    int64_t j = 0;
    for (; j + 4 <= count; j += 4) {
      Quad a, b;
      std::memcpy(&a, src + 2 * j, sizeof a);
      std::memcpy(&b, src + 2 * j + 4, sizeof b);
      const Quad e = __builtin_shufflevector(a, b, 0, 2, 4, 6), o = __builtin_shufflevector(a, b, 1, 3, 5, 7);
      std::memcpy(even + j, &e, sizeof e);
      std::memcpy(odd + j, &o, sizeof o);
    }
    for (; j < count; ++j) {
      even[j] = src[2 * j];
      odd[j] = src[2 * j + 1];
    }
  }

  // kRows output rows from oy by kVecs vectors of lanes M from output column ox. Each output sums its taps in
  // row-major order; one broadcast weight feeds kRows * kVecs independent accumulators, which hides the
  // latency of the chained additions. `tap` holds each tap's offset from `base` for output (0, 0). The last
  // vector starts `back` columns early, so a ragged end recomputes columns instead of running a tail.
  template <class M, int kRows, int kVecs, bool kExact>
  static void tile(const DepthwiseArgs& a, const Layout& l, const float* base, const int64_t* tap,
                   int64_t taps, const float* w, const float* bias, int64_t oy, int64_t ox, int64_t back,
                   float* y) {
    using F = typename M::F;
    constexpr int kW = M::width;
    int64_t col[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) col[v] = v * kW - (v == kVecs - 1 ? back : 0);
    F acc[kRows][kVecs];
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[r][v] = M::splat(0.0f);
    }
    const int64_t row_step = a.stride_h * l.row_stride;
    const float* origin = base + oy * row_step + ox;
    for (int64_t t = 0; t < taps; ++t) {
      const float* src = origin + tap[t];
      const F wv = M::splat(w[t]);
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < kVecs; ++v) {
          const F xv = M::load(src + r * row_step + col[v]);
          if constexpr (kExact)
            acc[r][v] = acc[r][v] + wv * xv;
          else
            acc[r][v] = M::fma(wv, xv, acc[r][v]);
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      float* out = y + (oy + r) * a.out_w + ox;
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) {
        F value = bias != nullptr ? acc[r][v] + M::splat(*bias) : acc[r][v];
        if constexpr (kExact) value = simd::canonicalize_nan<M>(value);
        M::store(out + col[v], value);
      }
    }
  }

  // Output rows oy .. oy + kRows - 1 of one plane: blocks of kVecs vectors, then one block of the remaining
  // vectors whose last one ends at the last column; narrower than one vector, the scalar twin column by
  // column.
  template <int kRows, bool kExact>
  static void row_group(const DepthwiseArgs& a, const Layout& l, const float* base, const int64_t* tap,
                        int64_t taps, const float* w, const float* bias, int64_t oy, float* y) {
    constexpr int kW = L::width, kVecs = kRows == 4 ? 2 : kRows == 3 ? 3 : 4;
    if (a.out_w < kW) {
      for (int64_t ox = 0; ox < a.out_w; ++ox)
        tile<typename L::Tail, kRows, 1, kExact>(a, l, base, tap, taps, w, bias, oy, ox, 0, y);
      return;
    }
    int64_t ox = 0;
    for (; ox + kVecs * kW <= a.out_w; ox += kVecs * kW)
      tile<L, kRows, kVecs, kExact>(a, l, base, tap, taps, w, bias, oy, ox, 0, y);
    const int64_t rest = a.out_w - ox, vecs = ceil_div(rest, kW), back = vecs * kW - rest;
    switch (vecs) {
      case 4:
        tile<L, kRows, 4, kExact>(a, l, base, tap, taps, w, bias, oy, ox, back, y);
        break;
      case 3:
        tile<L, kRows, 3, kExact>(a, l, base, tap, taps, w, bias, oy, ox, back, y);
        break;
      case 2:
        tile<L, kRows, 2, kExact>(a, l, base, tap, taps, w, bias, oy, ox, back, y);
        break;
      case 1:
        tile<L, kRows, 1, kExact>(a, l, base, tap, taps, w, bias, oy, ox, back, y);
        break;
      default:
        break;
    }
  }

  // Kernels with more taps than kMaxTaps: one output at a time in the same tap order.
  template <bool kExact>
  static void plain_plane(const DepthwiseArgs& a, const Layout& l, const float* base, const float* w,
                          const float* bias, float* y) {
    using S = typename L::Tail;
    for (int64_t oy = 0; oy < a.out_h; ++oy) {
      for (int64_t ox = 0; ox < a.out_w; ++ox) {
        float acc = 0.0f;
        for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
          for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
            const int64_t dx = kx * a.dilation_w;
            const float xv =
                base[(dx % a.stride_w) * l.plane_floats +
                     (oy * a.stride_h + ky * a.dilation_h) * l.row_stride + ox + dx / a.stride_w];
            const float wv = w[ky * a.kernel_w + kx];
            acc = kExact ? acc + wv * xv : S::fma(wv, xv, acc);
          }
        }
        if (bias != nullptr) acc = acc + *bias;
        y[oy * a.out_w + ox] = kExact ? simd::canonicalize_nan<S>(acc) : acc;
      }
    }
  }

  template <bool kExact>
  static void run_planes(const DepthwiseArgs& a, const Layout& l, int64_t first, int64_t end, float* slot) {
    // Offset of each tap from the top-left tap of output (0, 0): phase plane dx % sw, column dx / sw.
    int64_t tap[kMaxTaps];
    const int64_t taps = a.kernel_h * a.kernel_w, out_plane = a.out_h * a.out_w;
    if (taps <= kMaxTaps) {
      for (int64_t ky = 0, t = 0; ky < a.kernel_h; ++ky) {
        for (int64_t kx = 0; kx < a.kernel_w; ++kx, ++t) {
          const int64_t dx = kx * a.dilation_w;
          tap[t] = (dx % a.stride_w) * l.plane_floats + ky * a.dilation_h * l.row_stride + dx / a.stride_w;
        }
      }
    }
    int64_t built = -1;  // input plane held by the slot's phase planes
    for (int64_t q = first; q < end; ++q) {
      const int64_t input_plane = q / a.multiplier;
      const float* base = a.x + input_plane * a.in_h * a.in_w;
      if (!l.in_place) {
        if (built != input_plane) build_phases(a, l, base, slot, built < 0);
        built = input_plane;
        base = slot;
      }
      const float* w = a.w + q % a.channels_out * taps;
      const float* bias = a.bias != nullptr ? a.bias + q % a.channels_out : nullptr;
      float* y = a.y + q * out_plane;
      if (taps > kMaxTaps) {
        plain_plane<kExact>(a, l, base, w, bias, y);
        continue;
      }
      int64_t oy = 0;
      for (; oy + 4 <= a.out_h; oy += 4) row_group<4, kExact>(a, l, base, tap, taps, w, bias, oy, y);
      switch (a.out_h - oy) {
        case 3:
          row_group<3, kExact>(a, l, base, tap, taps, w, bias, oy, y);
          break;
        case 2:
          row_group<2, kExact>(a, l, base, tap, taps, w, bias, oy, y);
          break;
        case 1:
          row_group<1, kExact>(a, l, base, tap, taps, w, bias, oy, y);
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

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
// read in place. A row runs four vectors at a time, then single vectors, and a ragged end recomputes the last
// full vector ending at the last column (same values); rows narrower than one vector use the scalar twin.
//
// Chunks. A chunk is clamp(4096 / plane size, 1, 32) output planes, a constant of the shape. Phase planes
// live in the running thread's scratch slot and are rebuilt only when the input plane changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/kernel_table.h"
#include "kernels/simd.h"
#include "threading/parallel_for.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

template <class L>
struct DepthwiseImpl {
  static constexpr int64_t kAlignFloats = 16;  // 64 bytes
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

  // Writes the phase planes of input plane `x` (in_h x in_w) into `phases`.
  static void build_phases(const DepthwiseArgs& a, const Layout& l, const float* x, float* phases) {
    const int64_t sw = a.stride_w;
    for (int64_t p = 0; p < sw; ++p) {
      float* plane = phases + p * l.plane_floats;
      for (int64_t r = 0; r < l.padded_h; ++r) {
        float* dst = plane + r * l.phase_w;
        const int64_t iy = r - a.pad_top;
        if (iy < 0 || iy >= a.in_h) {
          for (int64_t j = 0; j < l.phase_w; ++j) dst[j] = 0.0f;
          continue;
        }
        const float* src = x + iy * a.in_w;
        // Phase column j is input column p + j*sw - pad_left; inside the input for j in [lo, hi).
        const int64_t first_col = p - a.pad_left;
        int64_t lo = first_col >= 0 ? 0 : ceil_div(-first_col, sw);
        int64_t hi = a.in_w - first_col <= 0 ? 0 : ceil_div(a.in_w - first_col, sw);
        if (hi > l.phase_w) hi = l.phase_w;
        if (lo > hi) lo = hi;
        for (int64_t j = 0; j < lo; ++j) dst[j] = 0.0f;
        const float* s = src + first_col + lo * sw;
        if (sw == 1) {
          for (int64_t j = lo; j < hi; ++j) dst[j] = s[j - lo];
        } else {
          for (int64_t j = lo; j < hi; ++j, s += sw) dst[j] = *s;
        }
        for (int64_t j = hi; j < l.phase_w; ++j) dst[j] = 0.0f;
      }
    }
  }

  // kVecs vectors of lanes M starting at output column ox of row oy: the taps in row-major order.
  template <class M, int kVecs, bool kExact>
  static void columns(const DepthwiseArgs& a, const Layout& l, const float* const* phase, const float* w,
                      const float* bias, int64_t oy, int64_t ox, float* out) {
    using F = typename M::F;
    constexpr int kW = M::width;
    F acc[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) acc[v] = M::splat(0.0f);
    for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
      const int64_t row = (oy * a.stride_h + ky * a.dilation_h) * l.row_stride + ox;
      for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
        const int64_t dx = kx * a.dilation_w;
        const float* src = phase[dx % a.stride_w] + row + dx / a.stride_w;
        const F wv = M::splat(w[ky * a.kernel_w + kx]);
#pragma GCC unroll 4
        for (int v = 0; v < kVecs; ++v) {
          if constexpr (kExact)
            acc[v] = acc[v] + wv * M::load(src + v * kW);
          else
            acc[v] = M::fma(wv, M::load(src + v * kW), acc[v]);
        }
      }
    }
    if (bias != nullptr) {
      const F b = M::splat(*bias);
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[v] = acc[v] + b;
    }
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) {
      M::store(out + ox + v * kW, kExact ? simd::canonicalize_nan<M>(acc[v]) : acc[v]);
    }
  }

  template <bool kExact>
  static void run_planes(const DepthwiseArgs& a, const Layout& l, int64_t first, int64_t end, float* slot) {
    constexpr int kW = L::width;
    const float* phase[8];  // one pointer per column phase; stride_w <= 8 is checked by the caller
    int64_t built = -1;     // input plane held by the slot's phase planes
    const int64_t taps = a.kernel_h * a.kernel_w, out_plane = a.out_h * a.out_w;
    for (int64_t q = first; q < end; ++q) {
      const int64_t input_plane = q / a.multiplier;
      const float* x = a.x + input_plane * a.in_h * a.in_w;
      if (l.in_place) {
        phase[0] = x;
      } else {
        if (built != input_plane) build_phases(a, l, x, slot);
        built = input_plane;
        for (int64_t p = 0; p < a.stride_w; ++p) phase[p] = slot + p * l.plane_floats;
      }
      const float* w = a.w + q % a.channels_out * taps;
      const float* bias = a.bias != nullptr ? a.bias + q % a.channels_out : nullptr;
      float* y = a.y + q * out_plane;
      for (int64_t oy = 0; oy < a.out_h; ++oy) {
        float* out = y + oy * a.out_w;
        if (a.out_w < kW) {
          for (int64_t ox = 0; ox < a.out_w; ++ox)
            columns<typename L::Tail, 1, kExact>(a, l, phase, w, bias, oy, ox, out);
          continue;
        }
        int64_t ox = 0;
        for (; ox + 4 * kW <= a.out_w; ox += 4 * kW) columns<L, 4, kExact>(a, l, phase, w, bias, oy, ox, out);
        for (; ox + kW <= a.out_w; ox += kW) columns<L, 1, kExact>(a, l, phase, w, bias, oy, ox, out);
        if (ox < a.out_w) columns<L, 1, kExact>(a, l, phase, w, bias, oy, a.out_w - kW, out);
      }
    }
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

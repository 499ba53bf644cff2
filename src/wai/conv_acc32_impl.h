// The wai-ops/1 acc32 convolution sums (docs/wai-ops.md "acc32 fast path"), written once and instantiated per
// kernel path by src/kernels/paths/instantiate.inc.
//
// Why int32 is exact here: the caller runs this only for a conv node whose bounds certificate meets acc32
// and whose input interval fits i32 (§7.2, §8). Then every product is inside conv.term and every partial
// sum, in any order and grouping, inside conv.acc (§8.2), both within i32, so no lane ever wraps and the
// order of the sum, the lane width and the thread count cannot change a value (§6).
//
// Layout. The input arrives zero-padded, so a tap never tests an edge. With stride 1 along x, a block of
// neighbouring outputs of one row reads contiguous inputs for each tap: the block's sums stay in registers
// across all taps (four vectors, then single vectors), and the rest of the row takes the scalar loop. Other
// strides take the scalar loop. Output channels are the parallel chunks.
#pragma once

#include <cstdint>

#include "kernels/kernel_table.h"
#include "threading/parallel_for.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

template <class L>
struct WaiConvAcc32Impl {
  using I = typename L::I;
  static constexpr int64_t kWidth = L::width;

  static I load(const int32_t* p) {
    if constexpr (kWidth == 1) {
      return *p;
    } else {
      return I::load_unaligned(p);
    }
  }
  static void store(int32_t* p, I v) {
    if constexpr (kWidth == 1) {
      *p = v;
    } else {
      v.store_unaligned(p);
    }
  }

  // Outputs [ox, ox + kBlock * kWidth) of row oy of one output channel, stride 1 along x.
  template <int kBlock>
  static void block(const WaiConvAcc32Args& a, const int32_t* x_group, const int32_t* w_o, int32_t bias,
                    int64_t oy, int64_t ox, int32_t* out_row) {
    I acc[kBlock];
    for (int k = 0; k < kBlock; ++k) acc[k] = L::splat_i(bias);
    const int64_t cg = a.cin / a.groups;
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t i = 0; i < a.kh; ++i) {
        const int32_t* row = x_group + (ci * a.in_h + oy * a.sh + i) * a.in_w + ox;
        const int32_t* w = w_o + (ci * a.kh + i) * a.kw;
        for (int64_t j = 0; j < a.kw; ++j) {
          const I wv = L::splat_i(w[j]);
          for (int k = 0; k < kBlock; ++k) acc[k] = acc[k] + wv * load(row + j + k * kWidth);
        }
      }
    for (int k = 0; k < kBlock; ++k) store(out_row + ox + k * kWidth, acc[k]);
  }

  // Outputs [ox_begin, out_w) of row oy, one at a time, any stride.
  static void scalar_outputs(const WaiConvAcc32Args& a, const int32_t* x_group, const int32_t* w_o,
                             int32_t bias, int64_t oy, int64_t ox_begin, int32_t* out_row) {
    const int64_t cg = a.cin / a.groups;
    for (int64_t ox = ox_begin; ox < a.out_w; ++ox) {
      int32_t acc = bias;
      for (int64_t ci = 0; ci < cg; ++ci)
        for (int64_t i = 0; i < a.kh; ++i) {
          const int32_t* row = x_group + (ci * a.in_h + oy * a.sh + i) * a.in_w + ox * a.sw;
          const int32_t* w = w_o + (ci * a.kh + i) * a.kw;
          for (int64_t j = 0; j < a.kw; ++j) acc += w[j] * row[j];
        }
      out_row[ox] = acc;
    }
  }

  static void run(const WaiConvAcc32Args& a, const ThreadContext& threads) {
    const int64_t cg = a.cin / a.groups, og = a.cout / a.groups;
    auto channel = [&](int64_t o) {
      const int32_t* x_group = a.x + (o / og) * cg * a.in_h * a.in_w;
      const int32_t* w_o = a.w + o * cg * a.kh * a.kw;
      const int32_t bias = a.bias ? a.bias[o] : 0;
      for (int64_t oy = 0; oy < a.out_h; ++oy) {
        int32_t* out_row = a.acc + (o * a.out_h + oy) * a.out_w;
        int64_t ox = 0;
        if constexpr (kWidth > 1) {
          if (a.sw == 1) {
            for (; ox + 4 * kWidth <= a.out_w; ox += 4 * kWidth)
              block<4>(a, x_group, w_o, bias, oy, ox, out_row);
            for (; ox + kWidth <= a.out_w; ox += kWidth) block<1>(a, x_group, w_o, bias, oy, ox, out_row);
          }
        }
        scalar_outputs(a, x_group, w_o, bias, oy, ox, out_row);
      }
    };
    const double macs = double(a.cout) * double(a.out_h * a.out_w) * double(cg * a.kh * a.kw);
    parallel_for(threads, a.cout, channel, macs * 0.2);
  }
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE

#include "kernels/conv/conv_lowering.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace onemodel {
namespace {

int64_t ceil_div_nonneg(int64_t x, int64_t d) {
  return x <= 0 ? 0 : d == 1 ? x : (x + d - 1) / d;
}

// `count` floats of src (fixed-size moves when the caller knows the count: kCount != 0), or +0 when src is
// null.
template <int64_t kCount>
void copy_run(float* dst, const float* src, int64_t count) {
  if constexpr (kCount != 0) {
    if (src != nullptr) {
      std::memcpy(dst, src, kCount * sizeof(float));
      return;
    }
    count = kCount;
  }
  if (src == nullptr) {
    for (int64_t i = 0; i < count; ++i) dst[i] = 0.0f;
  } else {
    for (int64_t i = 0; i < count; ++i) dst[i] = src[i];  // short runs: a loop beats a memcpy call
  }
}

// Where the rows of one strip of the packed block go: row r is row r - k0 of its 256-row block k0, whose
// strip s starts at k0 * padded + s * kc * nr.
struct StripRows {
  float* packed;
  int64_t rows, padded, nr, strip;

  float* row(int64_t r) const {
    const int64_t k0 = r / kPackedBlockRows * kPackedBlockRows;
    const int64_t kc = rows - k0 < kPackedBlockRows ? rows - k0 : kPackedBlockRows;
    return packed + k0 * padded + strip * kc * nr + (r - k0) * nr;
  }
};

// Calls row_fn(src, r) for every (c, kd, ky) in the order of the strip rows: src is the input row those taps
// read (nullptr when it lies in the padding), r the strip row of its kx = 0 tap. (id0, iy0) is the input
// position of tap (0, 0).
template <class RowFn>
void for_each_input_row(const ConvGeometry& g, const float* x, int64_t channels, int64_t id0, int64_t iy0,
                        RowFn row_fn) {
  for (int64_t c = 0, r = 0; c < channels; ++c) {
    const float* plane = x + c * g.in_size();
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      const int64_t id = id0 + kd * g.dilation[0];
      for (int64_t ky = 0; ky < g.kernel[1]; ++ky, r += g.kernel[2]) {
        const int64_t iy = iy0 + ky * g.dilation[1];
        const bool inside = id >= 0 && id < g.in[0] && iy >= 0 && iy < g.in[1];
        row_fn(inside ? plane + (id * g.in[1] + iy) * g.in[2] : nullptr, r);
      }
    }
  }
}

// `count` columns of one strip that lie in output row (od, oy) from column ox, at float `at` of each strip
// row; rows run (c, kd, ky, kx) in order. A tap outside the input is +0. kCount is count when it is a whole
// strip of a known width, else 0.
template <int64_t kCount>
void im2col_run(const ConvGeometry& g, const float* x, int64_t channels, const StripRows& out, int64_t at,
                int64_t count, int64_t od, int64_t oy, int64_t ox) {
  const int64_t sw = g.stride[2], in_w = g.in[2];
  const int64_t id0 = od * g.stride[0] - g.pad[0], iy0 = oy * g.stride[1] - g.pad[1],
                ix0 = ox * sw - g.pad[2];
  const int64_t kernel_w = g.kernel[2], dilation_w = g.dilation[2];
  // With stride 1 and every tap's run inside the input row (all but the edge strips), a row of taps is plain
  // copies: the per-tap edge tests below are skipped.
  const bool runs_inside = sw == 1 && ix0 >= 0 && ix0 + (kernel_w - 1) * dilation_w + count <= in_w;
  float* dst = nullptr;
  for_each_input_row(g, x, channels, id0, iy0, [&](const float* src, int64_t r) {
    if (src != nullptr && runs_inside) {
      for (int64_t kx = 0; kx < kernel_w; ++kx, ++r) {
        dst = r % kPackedBlockRows == 0 ? out.row(r) + at : dst + out.nr;
        copy_run<kCount>(dst, src + ix0 + kx * dilation_w, count);
      }
      return;
    }
    for (int64_t kx = 0; kx < kernel_w; ++kx, ++r) {
      dst = r % kPackedBlockRows == 0 ? out.row(r) + at : dst + out.nr;
      const int64_t ix = ix0 + kx * dilation_w;
      if (src == nullptr) {
        copy_run<kCount>(dst, nullptr, count);
      } else if (ix >= 0 && ix + (count - 1) * sw < in_w) {
        if (sw == 1) {
          copy_run<kCount>(dst, src + ix, count);
        } else {
          for (int64_t i = 0; i < count; ++i) dst[i] = src[ix + i * sw];
        }
      } else {
        // Only columns [lo, hi) of the run lie inside the input row: a padding edge, or a narrow input.
        const int64_t lo = std::min(count, ceil_div_nonneg(-ix, sw));
        const int64_t hi = std::max(lo, std::min(count, ceil_div_nonneg(in_w - ix, sw)));
        for (int64_t i = 0; i < lo; ++i) dst[i] = 0.0f;
        for (int64_t i = lo, col = ix + lo * sw; i < hi; ++i, col += sw) dst[i] = src[col];
        for (int64_t i = hi; i < count; ++i) dst[i] = 0.0f;
      }
    }
  });
}

// Strip `strip` of the block: columns [first, first + width) (width <= nr), cut where output rows end, and
// +0 in its columns past width. kNr is nr when it is one of the GEMM's strip widths, else 0.
template <int64_t kNr>
void im2col_strip(const ConvGeometry& g, const float* x, int64_t channels, const StripRows& out,
                  int64_t first, int64_t width) {
  const int64_t out_w = g.out[2], out_h = g.out[1];
  if (kNr != 0 && width == kNr && first % out_w + kNr <= out_w) {
    im2col_run<kNr>(g, x, channels, out, 0, kNr, first / (out_w * out_h), first / out_w % out_h,
                    first % out_w);
    return;
  }
  for (int64_t at = 0; at < width;) {
    const int64_t j = first + at, ox = j % out_w;
    const int64_t count = out_w - ox < width - at ? out_w - ox : width - at;
    im2col_run<0>(g, x, channels, out, at, count, j / (out_w * out_h), j / out_w % out_h, ox);
    at += count;
  }
  if (width == out.nr) return;
  for (int64_t r = 0; r < out.rows; ++r) copy_run<0>(out.row(r) + width, nullptr, out.nr - width);
}

// Whole strips side by side in one output row of a convolution with stride 1 along the columns, at most
// kMaxGroupStrips of them: each run of an input row is read once for all of them while it is in the
// first-level cache. Strip by strip, a block reads every input row again per strip, and with planes whose
// size is a multiple of 4 KiB (det's 160x160 maps) the rows of all channels share a few cache sets, so each
// read comes from the second level.
constexpr int64_t kMaxGroupStrips = 8;

// How many whole strips from column j (at most `width` columns) im2col_group can write: 0 or 1 when grouping
// does not apply.
int64_t group_strips(const ConvGeometry& g, int64_t j, int64_t width, int64_t nr) {
  if (g.stride[2] != 1) return 0;
  const int64_t out_w = g.out[2], ox = j % out_w;
  return std::min(std::min(width, out_w - ox) / nr, kMaxGroupStrips);
}

// `strips` whole strips of kNr columns from column `first`, the first of them `out`'s (group_strips). Row by
// row the strips get the same values as im2col_strip writes.
template <int64_t kNr>
void im2col_group(const ConvGeometry& g, const float* x, int64_t channels, const StripRows& out,
                  int64_t first, int64_t strips) {
  const int64_t out_w = g.out[2], out_h = g.out[1], in_w = g.in[2];
  const int64_t od = first / (out_w * out_h), oy = first / out_w % out_h, ox = first % out_w;
  const int64_t id0 = od * g.stride[0] - g.pad[0], iy0 = oy * g.stride[1] - g.pad[1], ix0 = ox - g.pad[2];
  float* dst = nullptr;
  int64_t strip_step = 0;  // floats from one strip's row to the next strip's in the current block
  // The input columns the group reads, and the channel after the current one to fetch them from ahead: a
  // row is a few cache lines, too short for the hardware prefetcher, and planes of a large map are far apart,
  // so without it every row started with a miss (the hottest instructions of im2col in IS-Net).
  constexpr int64_t kLineFloats = 16;
  const int64_t taps = g.taps(), in_size = g.in_size();
  const int64_t read_begin = std::max<int64_t>(ix0, 0);
  const int64_t read_end = std::min(ix0 + strips * kNr + (g.kernel[2] - 1) * g.dilation[2], in_w);
  for_each_input_row(g, x, channels, id0, iy0, [&](const float* row, int64_t r) {  // column ix at row[ix]
    if (row != nullptr && r / taps + 1 < channels) {
      for (int64_t ix = read_begin; ix < read_end; ix += kLineFloats) __builtin_prefetch(row + in_size + ix);
    }
    for (int64_t kx = 0; kx < g.kernel[2]; ++kx, ++r) {
      if (r % kPackedBlockRows == 0) {
        dst = out.row(r);
        strip_step = std::min(out.rows - r, kPackedBlockRows) * kNr;
      } else {
        dst += kNr;
      }
      for (int64_t s = 0, ix = ix0 + kx * g.dilation[2]; s < strips; ++s, ix += kNr) {
        float* run = dst + s * strip_step;
        if (row == nullptr) {
          copy_run<kNr>(run, nullptr, kNr);
        } else if (ix >= 0 && ix + kNr <= in_w) {
          copy_run<kNr>(run, row + ix, kNr);
        } else {
          // A strip at the padding: its columns outside the input row, [0, lo) and [hi, kNr), are +0.
          const int64_t lo = std::clamp<int64_t>(-ix, 0, kNr), hi = std::clamp<int64_t>(in_w - ix, lo, kNr);
          copy_run<0>(run, nullptr, lo);
          copy_run<0>(run + lo, row + ix + lo, hi - lo);
          copy_run<0>(run + hi, nullptr, kNr - hi);
        }
      }
    }
  });
}

// Taps are scattered in increasing (kd, ky, kx) order onto a plane cleared to +0, so every output receives
// its landing taps in that order from +0: the same additions as gathering them output by output.
void col2im_plane(const ConvGeometry& g, const float* col, float* y, bool exact) {
  const int64_t in_size = g.in_size(), out_size = g.out_size();
  for (int64_t o = 0; o < out_size; ++o) y[o] = 0.0f;
  const int64_t sw = g.stride[2];
  for (int64_t kd = 0, t = 0; kd < g.kernel[0]; ++kd) {
    for (int64_t ky = 0; ky < g.kernel[1]; ++ky) {
      for (int64_t kx = 0; kx < g.kernel[2]; ++kx, ++t) {
        const float* src = col + t * in_size;
        // Input columns [lo, hi) land inside the output row, at column ix * sw + shift.
        const int64_t shift = kx * g.dilation[2] - g.pad[2];
        const int64_t lo = ceil_div_nonneg(-shift, sw);
        int64_t hi = ceil_div_nonneg(g.out[2] - shift, sw);
        if (hi > g.in[2]) hi = g.in[2];
        for (int64_t id = 0; id < g.in[0]; ++id) {
          const int64_t od = id * g.stride[0] - g.pad[0] + kd * g.dilation[0];
          if (od < 0 || od >= g.out[0]) continue;
          for (int64_t iy = 0; iy < g.in[1]; ++iy) {
            const int64_t oy = iy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
            if (oy < 0 || oy >= g.out[1]) continue;
            float* dst = y + (od * g.out[1] + oy) * g.out[2] + shift;
            const float* row = src + (id * g.in[1] + iy) * g.in[2];
            for (int64_t ix = lo; ix < hi; ++ix) dst[ix * sw] = dst[ix * sw] + row[ix];
          }
        }
      }
    }
  }
  if (exact) {
    for (int64_t o = 0; o < out_size; ++o) {
      if (std::isnan(y[o])) y[o] = __builtin_bit_cast(float, 0x7FC00000u);
    }
  }
}

using StripFn = void (*)(const ConvGeometry&, const float*, int64_t, const StripRows&, int64_t, int64_t);
struct StripFns {
  StripFn strip, group;  // group: null for a width that has no im2col_group
};

// The strip copiers unrolled for the packing width nr when it is one the kernel paths use; the generic one
// otherwise.
template <int64_t... kWidths>
StripFns strip_kernels(int64_t nr, std::integer_sequence<int64_t, kWidths...>) {
  StripFns fns{im2col_strip<0>, nullptr};
  // (void): with a single width the fold is one comparison whose value clang reports as unused.
  (void)((nr == kWidths && (fns = {im2col_strip<kWidths>, im2col_group<kWidths>}, true)) || ...);
  return fns;
}

}  // namespace

void im2col_packed(const ConvGeometry& g, const float* x, int64_t channels, int64_t first, int64_t width,
                   int64_t nr, float* packed) {
  const int64_t padded = (width + nr - 1) / nr * nr;
  const StripFns fns = strip_kernels(nr, std::integer_sequence<int64_t, 4, 8, 12, 16, 32>{});
  // Strip by strip (each strip's rows are contiguous in the packed block, so the writes stream), or a group
  // of strips at once where the taps' runs stay inside the input.
  for (int64_t s = 0; s * nr < width;) {
    const StripRows out{packed, channels * g.taps(), padded, nr, s};
    const int64_t j = s * nr, strip_width = width - j < nr ? width - j : nr;
    const int64_t group = fns.group != nullptr ? group_strips(g, first + j, width - j, nr) : 0;
    if (group > 1) {
      fns.group(g, x, channels, out, first + j, group);
      s += group;
    } else {
      fns.strip(g, x, channels, out, first + j, strip_width);
      ++s;
    }
  }
}

void col2im(const ConvGeometry& g, const float* col, int64_t channels, float* y, bool exact,
            const ThreadContext& threads) {
  const int64_t taps = g.taps(), in_size = g.in_size(), out_size = g.out_size();
  const auto body = [&](int64_t c) { col2im_plane(g, col + c * taps * in_size, y + c * out_size, exact); };
  parallel_for(threads, channels, body, static_cast<double>(channels * (out_size + taps * in_size)));
}

}  // namespace onemodel

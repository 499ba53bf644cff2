#include "kernels/conv/conv_lowering.h"

#include <cmath>

namespace onemodel {
namespace {

int64_t ceil_div_nonneg(int64_t x, int64_t d) {
  return x <= 0 ? 0 : d == 1 ? x : (x + d - 1) / d;
}

// Writes one row of the packed-B layout column after column: each strip holds nr consecutive columns of the
// row, and the strips are `strip_floats` apart.
class PackedRowWriter {
 public:
  PackedRowWriter(float* row, int64_t nr, int64_t strip_floats)
      : dst_(row), nr_(nr), left_(nr), strip_skip_(strip_floats - nr) {}

  // The next `count` columns take src[0], src[sw], ... (+0 when src is null), strip piece by strip piece.
  void put(const float* src, int64_t sw, int64_t count) {
    while (count > 0) {
      const int64_t n = left_ < count ? left_ : count;
      if (src == nullptr) {
        for (int64_t i = 0; i < n; ++i) dst_[i] = 0.0f;
      } else if (sw == 1) {
        for (int64_t i = 0; i < n; ++i) dst_[i] = src[i];  // short runs: a loop beats a memcpy call
        src += n;
      } else {
        for (int64_t i = 0; i < n; ++i) dst_[i] = src[i * sw];
        src += n * sw;
      }
      dst_ += n;
      count -= n;
      left_ -= n;
      if (left_ == 0) dst_ += strip_skip_, left_ = nr_;
    }
  }

 private:
  float* dst_;
  int64_t nr_, left_, strip_skip_;
};

// Output columns [ox_begin, ox_end) of output row (od, oy) for tap (kd, ky, kx) of input plane `plane`, as
// the next columns of `row`.
void im2col_segment(const ConvGeometry& g, const float* plane, int64_t kd, int64_t ky, int64_t kx, int64_t od,
                    int64_t oy, int64_t ox_begin, int64_t ox_end, PackedRowWriter& row) {
  const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
  const int64_t iy = oy * g.stride[1] - g.pad[1] + ky * g.dilation[1];
  if (id < 0 || id >= g.in[0] || iy < 0 || iy >= g.in[1]) {
    row.put(nullptr, 1, ox_end - ox_begin);
    return;
  }
  const int64_t sw = g.stride[2];
  const int64_t offset = kx * g.dilation[2] - g.pad[2];  // input column of output column 0
  // Output columns [lo, hi) read inside the input.
  int64_t lo = ceil_div_nonneg(-offset, sw), hi = ceil_div_nonneg(g.in[2] - offset, sw);
  lo = lo < ox_begin ? ox_begin : lo > ox_end ? ox_end : lo;
  hi = hi > ox_end ? ox_end : hi < lo ? lo : hi;
  const float* src = plane + (id * g.in[1] + iy) * g.in[2] + offset;
  row.put(nullptr, 1, lo - ox_begin);
  row.put(src + lo * sw, sw, hi - lo);
  row.put(nullptr, 1, ox_end - hi);
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

}  // namespace

void im2col_packed(const ConvGeometry& g, const float* x, int64_t channels, int64_t first, int64_t width,
                   int64_t nr, float* packed) {
  const int64_t taps = g.taps(), out_w = g.out[2], out_h = g.out[1], rows = channels * taps;
  const int64_t padded = (width + nr - 1) / nr * nr;
  const int64_t first_ox = first % out_w, first_oy = first / out_w % out_h,
                first_od = first / (out_w * out_h);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r / taps, t = r % taps;
    const int64_t kx = t % g.kernel[2], ky = t / g.kernel[2] % g.kernel[1],
                  kd = t / (g.kernel[2] * g.kernel[1]);
    const float* plane = x + c * g.in_size();
    // Row r is row r - k0 of block k0; in strip s (at s*kc*nr within the block) it is run r - k0 of nr
    // floats.
    const int64_t k0 = r / kPackedBlockRows * kPackedBlockRows;
    const int64_t kc = rows - k0 < kPackedBlockRows ? rows - k0 : kPackedBlockRows;
    PackedRowWriter row(packed + k0 * padded + (r - k0) * nr, nr, kc * nr);
    // The row's columns one output row segment at a time.
    int64_t ox = first_ox, oy = first_oy, od = first_od;
    for (int64_t j = 0; j < width;) {
      const int64_t end = ox + (width - j) < out_w ? ox + (width - j) : out_w;
      im2col_segment(g, plane, kd, ky, kx, od, oy, ox, end, row);
      j += end - ox;
      ox = 0;
      if (++oy == out_h) oy = 0, ++od;
    }
    row.put(nullptr, 1, padded - width);
  }
}

void col2im(const ConvGeometry& g, const float* col, int64_t channels, float* y, bool exact,
            const ThreadContext& threads) {
  const int64_t taps = g.taps(), in_size = g.in_size(), out_size = g.out_size();
  const auto body = [&](int64_t c) { col2im_plane(g, col + c * taps * in_size, y + c * out_size, exact); };
  parallel_for(threads, channels, body, static_cast<double>(channels * (out_size + taps * in_size)));
}

}  // namespace onemodel

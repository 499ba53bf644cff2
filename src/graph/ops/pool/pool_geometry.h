// Window geometry shared by MaxPool, AveragePool and LpPool (ops-conv.md "Output sizes"): the attributes
// parsed once per node, and per input shape the output extents and paddings of each spatial axis. One, two
// or three spatial axes are lifted to three by leading axes of extent 1, so the kernels loop over depth,
// height and width only.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "graph/op.h"

namespace onemodel::ops {

inline constexpr int kPoolAxes = 3;

// Window taps [lo, hi) of one axis.
struct TapRange {
  int64_t lo = 0, hi = 0;
  int64_t count() const { return hi > lo ? hi - lo : 0; }
};

struct PoolAxis {
  int64_t in = 1, out = 1, kernel = 1, stride = 1, dilation = 1, pad_begin = 0, pad_end = 0;

  // Input position of output o's first tap (negative inside the begin padding).
  int64_t start(int64_t o) const { return o * stride - pad_begin; }
  // The taps k of a window whose first tap is at `first` with 0 <= first + k * dilation < extent.
  TapRange taps_within(int64_t first, int64_t extent) const {
    TapRange r;
    r.lo = first >= 0 ? 0 : (-first + dilation - 1) / dilation;
    r.hi = first >= extent ? 0 : std::min(kernel, (extent - first + dilation - 1) / dilation);
    return r;
  }
  // Output o's taps inside the input.
  TapRange inside(int64_t o) const { return taps_within(start(o), in); }
  // How many of output o's taps lie inside the input or its declared padding (not beyond, where ceil_mode
  // may reach).
  int64_t padded_count(int64_t o) const {
    return taps_within(start(o) + pad_begin, in + pad_begin + pad_end).count();
  }
};

struct PoolGeometry {
  int64_t planes = 0;                    // batch * channels
  std::array<PoolAxis, kPoolAxes> axes;  // depth, height, width
  int64_t in_plane() const { return axes[0].in * axes[1].in * axes[2].in; }
  int64_t out_plane() const { return axes[0].out * axes[1].out * axes[2].out; }
};

class PoolAttributes {
 public:
  // Reads kernel_shape, strides, pads, dilations (when `dilations` is true), auto_pad and ceil_mode; fails
  // naming the node on malformed values and reports more than three spatial axes as unsupported.
  PoolAttributes(const NodeInfo& node, bool dilations);

  int spatial() const { return spatial_; }
  // Infer: the output shape [N, C, out...] for input `in`, or ctx.fail when the rank is wrong or a window
  // does not fit.
  Shape output_shape(const InferContext& ctx, const Shape& in) const;
  // The geometry for an input shape that output_shape() accepted.
  PoolGeometry geometry(const Shape& in) const;

 private:
  // nullptr when the geometry is valid, else the reason.
  const char* build(const Shape& in, PoolGeometry& g) const;

  enum class AutoPad { NotSet, SameUpper, SameLower, Valid };
  int spatial_ = 0;
  std::array<int64_t, kPoolAxes> kernel_{}, stride_{}, dilation_{}, pad_begin_{}, pad_end_{};
  AutoPad auto_pad_ = AutoPad::NotSet;
  bool ceil_mode_ = false;
};

// Calls, for every output of one plane, either w.at(od, oh, ow) (any window) or, when `rows` allows,
// w.row(od, oh, ow_begin, ow_end) for a stretch of a row whose windows lie wholly inside the input, have
// depth extent 1 and no dilation. Which outputs take the row form depends only on the geometry, and both
// forms compute the same values, so neither changes a result.
template <class W>
void walk_plane(const PoolGeometry& g, const W& w, bool rows) {
  const PoolAxis& d = g.axes[0];
  const PoolAxis& h = g.axes[1];
  const PoolAxis& x = g.axes[2];
  rows = rows && d.kernel == 1 && h.dilation == 1 && x.dilation == 1;
  // Columns [lo, hi) whose windows start at or after 0 and end inside the input.
  const int64_t lo = std::min(x.out, (x.pad_begin + x.stride - 1) / x.stride);
  const int64_t last = x.in - x.kernel + x.pad_begin;
  const int64_t hi = last < 0 ? lo : std::max(lo, std::min(x.out, last / x.stride + 1));
  for (int64_t od = 0; od < d.out; ++od) {
    for (int64_t oh = 0; oh < h.out; ++oh) {
      const bool whole = rows && hi > lo && d.inside(od).count() == 1 && h.inside(oh).count() == h.kernel;
      if (!whole) {
        for (int64_t ow = 0; ow < x.out; ++ow) w.at(od, oh, ow);
        continue;
      }
      for (int64_t ow = 0; ow < lo; ++ow) w.at(od, oh, ow);
      w.row(od, oh, lo, hi);
      for (int64_t ow = hi; ow < x.out; ++ow) w.at(od, oh, ow);
    }
  }
}

// Runs fn(plane) for every plane on the thread pool, in fixed groups of planes. `ns_per_tap` estimates the
// cost of one window tap.
template <class F>
void for_each_plane(const ThreadContext& threads, const PoolGeometry& g, double ns_per_tap, const F& fn) {
  // In double: kernel extents may multiply beyond int64 (huge windows over padding).
  const double plane_work =
      std::max(1.0, static_cast<double>(g.out_plane()) * static_cast<double>(g.axes[0].kernel) *
                        static_cast<double>(g.axes[1].kernel) * static_cast<double>(g.axes[2].kernel));
  const int64_t per_chunk =
      plane_work >= 32768.0 ? 1 : std::max<int64_t>(1, static_cast<int64_t>(32768.0 / plane_work));
  const int64_t chunks = (g.planes + per_chunk - 1) / per_chunk;
  auto chunk = [&](int64_t c) {
    for (int64_t p = c * per_chunk; p < std::min(g.planes, (c + 1) * per_chunk); ++p) fn(p);
  };
  parallel_for(threads, chunks, chunk, ns_per_tap * plane_work * static_cast<double>(g.planes));
}

// The sum from +0 of term(v) over the taps of window (od, oh, ow) that lie inside the input plane `in`, in
// depth, height, width order (ops-conv.md "Pooling").
template <class Term>
float window_sum(const PoolGeometry& g, const float* in, int64_t od, int64_t oh, int64_t ow,
                 const Term& term) {
  const PoolAxis &d = g.axes[0], &h = g.axes[1], &x = g.axes[2];
  const TapRange rd = d.inside(od), rh = h.inside(oh), rw = x.inside(ow);
  float sum = 0.0f;
  for (int64_t kd = rd.lo; kd < rd.hi; ++kd) {
    const int64_t id = d.start(od) + kd * d.dilation;
    for (int64_t kh = rh.lo; kh < rh.hi; ++kh) {
      const int64_t ih = h.start(oh) + kh * h.dilation;
      const float* row = in + (id * h.in + ih) * x.in + x.start(ow);
      for (int64_t kw = rw.lo; kw < rw.hi; ++kw) sum = sum + term(row[kw * x.dilation]);
    }
  }
  return sum;
}

// A float32 pooling operator with windows (AveragePool, LpPool): the output shape comes from its attributes,
// and each plane is walked with the window functor make(geometry, input plane, output plane) returns.
class FloatWindowPool : public OpKernel {
 public:
  explicit FloatWindowPool(PoolAttributes attributes) : attributes_(std::move(attributes)) {}

  void infer(InferContext& ctx) const override;

 protected:
  template <class MakeWindows>
  void run_planes(const OpRun& run, double ns_per_tap, bool rows, const MakeWindows& make) const {
    const PoolGeometry g = attributes_.geometry(run.inputs[0].shape);
    const float* in = run.inputs[0].as<const float>();
    float* out = run.outputs[0].as<float>();
    const int64_t in_plane = g.in_plane(), out_plane = g.out_plane();
    if (out_plane == 0) return;
    for_each_plane(run.threads, g, ns_per_tap,
                   [&](int64_t p) { walk_plane(g, make(g, in + p * in_plane, out + p * out_plane), rows); });
  }

 private:
  PoolAttributes attributes_;
};

// Infer of the global pools: [N, C, 1, ...] of the input's rank (at least 2), float32 only.
void infer_global_pool(InferContext& ctx);

// Run of the global pools: each plane of input 0 folds to one value, acc = step(acc, v) over its elements in
// index order from `init`, and stores finish(acc). Eight planes advance together so their dependency chains
// overlap; each plane's order is unchanged, and groups of planes are shared between threads in fixed chunks.
template <class Step, class Finish>
void fold_planes(const OpRun& run, float init, const Step& step, const Finish& finish) {
  constexpr int64_t kLanes = 8;
  const TensorRef& x = run.inputs[0];
  const int64_t planes = x.shape[0] * x.shape[1], plane = x.shape.count(2, x.shape.rank);
  const float* in = x.as<const float>();
  float* out = run.outputs[0].as<float>();
  const int64_t groups = (planes + kLanes - 1) / kLanes;
  const int64_t per_chunk = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, kLanes * plane));
  auto chunk = [&](int64_t c) {
    for (int64_t group = c * per_chunk; group < std::min(groups, (c + 1) * per_chunk); ++group) {
      const int64_t first = group * kLanes, lanes = std::min(kLanes, planes - first);
      const float* base = in + first * plane;
      float acc[kLanes];
      for (int64_t q = 0; q < kLanes; ++q) acc[q] = init;
      if (lanes == kLanes) {
        for (int64_t i = 0; i < plane; ++i) {
          for (int64_t q = 0; q < kLanes; ++q) acc[q] = step(acc[q], base[q * plane + i]);
        }
      } else {
        for (int64_t q = 0; q < lanes; ++q) {
          for (int64_t i = 0; i < plane; ++i) acc[q] = step(acc[q], base[q * plane + i]);
        }
      }
      for (int64_t q = 0; q < lanes; ++q) out[first + q] = finish(acc[q]);
    }
  };
  parallel_for(run.threads, (groups + per_chunk - 1) / per_chunk, chunk,
               0.3 * static_cast<double>(planes) * static_cast<double>(plane));
}

}  // namespace onemodel::ops

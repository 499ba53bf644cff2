// Resize (opset 10 and later) and Upsample (opsets 7 to 10), float32, per ops-conv.md "Resize" and
// ops-coverage.md (antialias). Axes are resampled one at a time, shrinking axes first and then the others,
// each in axis order, through a per-output tap table (input index and weight). Coordinates and weights are
// float32; a sum starts at +0 and adds its taps in increasing input order, each product and sum rounded on
// its own, and a tap of weight exactly zero is left out. Nearest copies elements. The results are the same
// bits in fast and exact mode; stored NaNs are canonical in both.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

enum class Mode { Nearest, Linear, Cubic };
enum class Coordinates {
  HalfPixel,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNn,
  HalfPixelSymmetric,
  TfCropAndResize
};
enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
enum class AspectPolicy { Stretch, NotLarger, NotSmaller };

struct ResizeAttributes {
  Mode mode = Mode::Nearest;
  Coordinates coordinates = Coordinates::Asymmetric;
  Rounding rounding = Rounding::Floor;
  float cubic_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation = 0.0f;
  AspectPolicy policy = AspectPolicy::Stretch;
  bool antialias = false;
  std::vector<int64_t> axes;  // the `axes` attribute; empty: every axis
  // Input positions, -1 when the operator version has no such input.
  int roi_input = -1, scales_input = -1, sizes_input = -1;
  std::vector<float> scales_attribute;  // Upsample-7
};

// One axis of one resize: extents, the scale of the coordinate formulas and the crop region.
struct AxisPlan {
  int64_t in = 1, out = 1;
  float scale = 1.0f;
  float roi_start = 0.0f, roi_end = 1.0f;
};

struct ResizePlan {
  int rank = 0;
  std::array<AxisPlan, kMaxRank> axes;
};

// The taps of one output position along one axis.
struct TapTable {
  int64_t width = 0;         // taps reserved per output position
  int32_t* count = nullptr;  // per output: taps used; -1 marks a position outside the crop region
  int64_t* index = nullptr;  // [out * width]
  float* weight = nullptr;   // [out * width]
};

float roi_value(const TensorRef& roi, int64_t i) {
  return roi.dtype == DType::F64 ? static_cast<float>(roi.as<const double>()[i]) : roi.as<const float>()[i];
}

// Keys' cubic convolution kernel with parameter a at distance d.
float cubic_weight(float d, float a) {
  d = std::fabs(d);
  if (d <= 1.0f) return ((a + 2.0f) * d - (a + 3.0f)) * d * d + 1.0f;
  if (d < 2.0f) return ((a * d - 5.0f * a) * d + 8.0f * a) * d - 4.0f * a;
  return 0.0f;
}

class Resize final : public OpKernel {
 public:
  explicit Resize(ResizeAttributes a) : a_(std::move(a)) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) unsupported_type(ctx, ctx.input_dtype(0));
    const TensorRef* values[3] = {};
    const int inputs[3] = {a_.roi_input, a_.scales_input, a_.sizes_input};
    for (int k = 0; k < 3; ++k) {
      const int i = inputs[k];
      if (i < 0 || !ctx.has_input(static_cast<size_t>(i))) continue;
      if (ctx.input_shape(static_cast<size_t>(i)).count() == 0) continue;      // empty: as if omitted
      if (k == 0 && a_.coordinates != Coordinates::TfCropAndResize) continue;  // roi is read only there
      values[k] = ctx.input_value(static_cast<size_t>(i));
      if (values[k] == nullptr) {
        ctx.require_run_time_values();
        return;
      }
    }
    ResizePlan p;
    if (const char* problem = plan(ctx.input_shape(0), values[0], values[1], values[2], p)) ctx.fail(problem);
    Shape out = ctx.input_shape(0);
    for (int d = 0; d < out.rank; ++d) out[d] = p.axes[static_cast<size_t>(d)].out;
    ctx.set_output(0, DType::F32, out);
  }

  void run(const OpRun& run) const override {
    const TensorRef* values[3] = {};
    const int inputs[3] = {a_.roi_input, a_.scales_input, a_.sizes_input};
    for (int k = 0; k < 3; ++k) {
      const int i = inputs[k];
      if (i >= 0 && run.has_input(static_cast<size_t>(i)) && run.inputs[static_cast<size_t>(i)].count() > 0)
        values[k] = &run.inputs[static_cast<size_t>(i)];
    }
    const TensorRef& x = run.inputs[0];
    ResizePlan p;
    if (plan(x.shape, values[0], values[1], values[2], p) != nullptr) return;  // infer accepted these inputs
    TensorRef& y = run.outputs[0];
    if (y.count() == 0) return;

    // Axes to resample: shrinking ones first, then the others, each group in axis order.
    int order[kMaxRank];
    int passes = 0;
    for (int group = 0; group < 2; ++group) {
      for (int d = 0; d < p.rank; ++d) {
        const AxisPlan& ax = p.axes[static_cast<size_t>(d)];
        const bool identity =
            ax.scale == 1.0f && ax.in == ax.out && a_.coordinates != Coordinates::TfCropAndResize;
        if (!identity && (ax.out < ax.in) == (group == 0)) order[passes++] = d;
      }
    }
    Shape dims = x.shape;
    const float* src = x.as<const float>();
    if (passes == 0) {
      copy_canonical(src, y.as<float>(), y.count(), run.threads);
      return;
    }
    TapTable tables[kMaxRank];
    for (int k = 0; k < passes; ++k) tables[k] = taps(p.axes[static_cast<size_t>(order[k])], *run.scratch);
    for (int k = 0; k < passes; ++k) {
      const int d = order[k];
      const int64_t outer = dims.count(0, d), inner = dims.count(d + 1, dims.rank);
      dims[d] = p.axes[static_cast<size_t>(d)].out;
      float* dst = k + 1 == passes ? y.as<float>()
                                   : run.scratch->allocate_array<float>(static_cast<size_t>(dims.count()));
      resample(src, dst, outer, p.axes[static_cast<size_t>(d)], inner, tables[k], run.threads);
      src = dst;
    }
    if (a_.coordinates == Coordinates::TfCropAndResize) {
      for (int k = 0; k < passes; ++k) extrapolate(y, order[k], tables[k]);
    }
  }

 private:
  // Fills p from the input shape and the values of roi, scales and sizes (nullptr: omitted or empty);
  // returns nullptr, or the problem.
  const char* plan(const Shape& in, const TensorRef* roi, const TensorRef* scales, const TensorRef* sizes,
                   ResizePlan& p) const {
    p.rank = in.rank;
    for (int d = 0; d < in.rank; ++d) {
      p.axes[static_cast<size_t>(d)] = AxisPlan{in[d], in[d], 1.0f, 0.0f, 1.0f};
    }
    // Listed axes: `axes`, or all.
    int listed[kMaxRank];
    int n = 0;
    if (a_.axes.empty()) {
      for (int d = 0; d < in.rank; ++d) listed[n++] = d;
    } else {
      uint32_t seen = 0;
      for (int64_t axis : a_.axes) {
        const int d = normalize_axis(axis, in.rank);
        if (d < 0 || ((seen >> d) & 1u) != 0) return "axes lists an axis outside the input or twice";
        seen |= 1u << d;
        listed[n++] = d;
      }
    }
    const bool from_attribute = !a_.scales_attribute.empty();
    if (from_attribute || scales != nullptr) {
      if (sizes != nullptr) return "scales and sizes are both given";
      const size_t count = from_attribute ? a_.scales_attribute.size() : static_cast<size_t>(scales->count());
      if (!from_attribute && scales->dtype != DType::F32) return "scales must be float32";
      if (count != static_cast<size_t>(n)) return "scales needs one value per resized axis";
      for (int k = 0; k < n; ++k) {
        const float s =
            from_attribute ? a_.scales_attribute[static_cast<size_t>(k)] : scales->as<const float>()[k];
        if (!(s > 0.0f) || !std::isfinite(s)) return "scales must be positive and finite";
        AxisPlan& ax = p.axes[static_cast<size_t>(listed[k])];
        ax.scale = s;
        const float size = std::floor(static_cast<float>(ax.in) * s);
        if (!(size < static_cast<float>(kMaxElements))) return "an output extent is too large";
        ax.out = static_cast<int64_t>(size);
      }
    } else if (sizes != nullptr) {
      if (sizes->dtype != DType::I64) return "sizes must be int64";
      if (sizes->count() != n) return "sizes needs one value per resized axis";
      const int64_t* v = sizes->as<const int64_t>();
      for (int k = 0; k < n; ++k) {
        if (v[k] < 0 || v[k] > kMaxElements) return "sizes must not be negative";
        if (v[k] > 0 && in[listed[k]] == 0) return "an empty axis cannot grow";
      }
      if (a_.policy == AspectPolicy::Stretch) {
        for (int k = 0; k < n; ++k) {
          AxisPlan& ax = p.axes[static_cast<size_t>(listed[k])];
          ax.out = v[k];
          ax.scale = ax.in == 0 ? 1.0f : static_cast<float>(v[k]) / static_cast<float>(ax.in);
        }
      } else {
        // One scale for every listed axis: the smallest (not_larger) or largest (not_smaller) ratio.
        float s = 0.0f;
        for (int k = 0; k < n; ++k) {
          const int64_t extent = in[listed[k]];
          if (extent == 0) continue;
          const float r = static_cast<float>(v[k]) / static_cast<float>(extent);
          if (s == 0.0f || (a_.policy == AspectPolicy::NotLarger ? r < s : r > s)) s = r;
        }
        if (!(s > 0.0f)) return "keep_aspect_ratio_policy needs positive sizes";
        for (int k = 0; k < n; ++k) {
          AxisPlan& ax = p.axes[static_cast<size_t>(listed[k])];
          ax.scale = s;
          const float size = std::round(static_cast<float>(ax.in) * s);
          if (!(size < static_cast<float>(kMaxElements))) return "an output extent is too large";
          ax.out = static_cast<int64_t>(size);
        }
      }
    } else {
      return "either scales or sizes must be given";
    }
    if (a_.coordinates == Coordinates::TfCropAndResize) {
      if (roi == nullptr) return "tf_crop_and_resize needs roi";
      if (roi->dtype != DType::F32 && roi->dtype != DType::F64) return "roi must be float32 or float64";
      // roi lists the starts then the ends, of every axis or of the listed ones.
      const int64_t per = roi->count() / 2;
      if (roi->count() != 2 * n && roi->count() != 2 * in.rank)
        return "roi needs a start and an end per axis";
      for (int k = 0; k < n; ++k) {
        const int d = listed[k];
        const int64_t at = per == n ? k : d;
        p.axes[static_cast<size_t>(d)].roi_start = roi_value(*roi, at);
        p.axes[static_cast<size_t>(d)].roi_end = roi_value(*roi, at + per);
      }
    }
    return nullptr;
  }

  // Input coordinate of output position j.
  float source(const AxisPlan& ax, int64_t j) const {
    const float fj = static_cast<float>(j), s = ax.scale;
    const float in = static_cast<float>(ax.in), out = static_cast<float>(ax.out);
    switch (a_.coordinates) {
      case Coordinates::HalfPixel:
        return (fj + 0.5f) / s - 0.5f;
      case Coordinates::PytorchHalfPixel:
        return ax.out > 1 ? (fj + 0.5f) / s - 0.5f : 0.0f;
      case Coordinates::AlignCorners:
        return ax.out > 1 ? fj * (in - 1.0f) / (out - 1.0f) : 0.0f;
      case Coordinates::Asymmetric:
        return fj / s;
      case Coordinates::TfHalfPixelForNn:
        return (fj + 0.5f) / s;
      case Coordinates::HalfPixelSymmetric: {
        const float offset = in / 2.0f * (1.0f - out / (s * in));
        return offset + (fj + 0.5f) / s - 0.5f;
      }
      case Coordinates::TfCropAndResize: {
        const float span = ax.roi_end - ax.roi_start;
        if (ax.out > 1) return ax.roi_start * (in - 1.0f) + fj * span * (in - 1.0f) / (out - 1.0f);
        return 0.5f * (ax.roi_start + ax.roi_end) * (in - 1.0f);
      }
    }
    return 0.0f;
  }

  int64_t nearest(float x, int64_t in) const {
    const float f = std::floor(x);
    float r = f;
    switch (a_.rounding) {
      case Rounding::RoundPreferFloor:
        r = x - f > 0.5f ? f + 1.0f : f;
        break;
      case Rounding::RoundPreferCeil:
        r = x - f >= 0.5f ? f + 1.0f : f;
        break;
      case Rounding::Floor:
        break;
      case Rounding::Ceil:
        r = std::ceil(x);
        break;
    }
    return static_cast<int64_t>(std::clamp(r, 0.0f, static_cast<float>(in - 1)));
  }

  bool antialiased(const AxisPlan& ax) const {
    return a_.antialias && a_.mode != Mode::Nearest && ax.scale < 1.0f;
  }

  // The tap table of one axis, in the run's scratch memory.
  TapTable taps(const AxisPlan& ax, Arena& scratch) const {
    TapTable t;
    if (antialiased(ax)) {
      const float reach = (a_.mode == Mode::Cubic ? 2.0f : 1.0f) / ax.scale;
      t.width = 2 * static_cast<int64_t>(std::ceil(reach)) + 2;
    } else {
      t.width = a_.mode == Mode::Nearest ? 1 : a_.mode == Mode::Linear ? 2 : 4;
    }
    const size_t out = static_cast<size_t>(ax.out), cells = out * static_cast<size_t>(t.width);
    t.count = scratch.allocate_array<int32_t>(out);
    t.index = scratch.allocate_array<int64_t>(cells);
    t.weight = scratch.allocate_array<float>(cells);
    const float last = static_cast<float>(ax.in - 1);
    for (int64_t j = 0; j < ax.out; ++j) {
      const float x = source(ax, j);
      int64_t* index = t.index + j * t.width;
      float* weight = t.weight + j * t.width;
      int32_t& n = t.count[j];
      n = 0;
      if (a_.coordinates == Coordinates::TfCropAndResize && !(x >= 0.0f && x <= last)) {
        n = -1;
        continue;
      }
      auto add = [&](int64_t i, float w) {
        index[n] = i;
        weight[n] = w;
        ++n;
      };
      if (a_.mode == Mode::Nearest) {
        add(nearest(x, ax.in), 1.0f);
      } else if (antialiased(ax)) {
        antialias_taps(ax, x, add, index, weight, n);
      } else if (a_.mode == Mode::Linear) {
        const float c = std::clamp(x, 0.0f, last);
        const float f = std::floor(c);
        const int64_t i0 = static_cast<int64_t>(f);
        const float frac = c - f;
        add(i0, 1.0f - frac);
        add(std::min(i0 + 1, ax.in - 1), frac);
      } else {
        const float f = std::floor(x);
        const float frac = x - f;
        const int64_t i0 = static_cast<int64_t>(f);
        float sum = 0.0f;
        for (int k = -1; k <= 2; ++k) {
          const int64_t i = i0 + k;
          const bool outside = i < 0 || i >= ax.in;
          if (outside && a_.exclude_outside) continue;
          const float w = cubic_weight(frac - static_cast<float>(k), a_.cubic_a);
          add(std::clamp<int64_t>(i, 0, ax.in - 1), w);
          sum = sum + w;
        }
        if (a_.exclude_outside) {
          for (int k = 0; k < n; ++k) weight[k] = weight[k] / sum;
        }
      }
      drop_zero_weights(index, weight, n);
      // Unused cells repeat the first index with weight 0 for line_finite().
      for (int64_t k = n; k < t.width; ++k) {
        index[k] = n > 0 ? index[0] : 0;
        weight[k] = 0.0f;
      }
    }
    return t;
  }

  // The antialiasing filter of ops-coverage.md: every input position i around x with a non-zero weight
  // filter((i - x) * scale), edge positions standing in for those outside the input (or dropped with
  // exclude_outside), all divided by their sum.
  template <class Add>
  void antialias_taps(const AxisPlan& ax, float x, const Add& add, int64_t* index, float* weight,
                      int32_t& n) const {
    const float reach = (a_.mode == Mode::Cubic ? 2.0f : 1.0f) / ax.scale;
    const int64_t first = static_cast<int64_t>(std::ceil(x - reach));
    const int64_t last = static_cast<int64_t>(std::floor(x + reach));
    float sum = 0.0f;
    for (int64_t i = first; i <= last; ++i) {
      const float d = (static_cast<float>(i) - x) * ax.scale;
      const float w =
          a_.mode == Mode::Cubic ? cubic_weight(d, a_.cubic_a) : std::max(0.0f, 1.0f - std::fabs(d));
      if (w == 0.0f) continue;
      const bool outside = i < 0 || i >= ax.in;
      if (outside && a_.exclude_outside) continue;
      const int64_t at = std::clamp<int64_t>(i, 0, ax.in - 1);
      // Positions beyond an edge share the edge's tap, which is next to them in the table.
      if (n > 0 && index[n - 1] == at)
        weight[n - 1] = weight[n - 1] + w;
      else
        add(at, w);
      sum = sum + w;
    }
    for (int k = 0; k < n; ++k) weight[k] = weight[k] / sum;
  }

  static void drop_zero_weights(int64_t* index, float* weight, int32_t& n) {
    int32_t kept = 0;
    for (int32_t k = 0; k < n; ++k) {
      if (weight[k] == 0.0f) continue;
      index[kept] = index[k];
      weight[kept] = weight[k];
      ++kept;
    }
    n = kept;
  }

  // One pass: src [outer, ax.in, inner] to dst [outer, ax.out, inner]. Output rows (of `inner` elements, or
  // of ax.out elements when the axis is the innermost) are independent, so they are shared between threads
  // in fixed chunks.
  void resample(const float* src, float* dst, int64_t outer, const AxisPlan& ax, int64_t inner,
                const TapTable& t, const ThreadContext& threads) const {
    const bool last_axis = inner == 1;
    const int64_t rows = last_axis ? outer : outer * ax.out, row = last_axis ? ax.out : inner;
    const int64_t per_chunk = std::max<int64_t>(1, kElementChunk / std::max<int64_t>(1, row));
    const int64_t chunks = (rows + per_chunk - 1) / per_chunk;
    const bool doubling = last_axis && doubles(ax, t);
    auto chunk = [&](int64_t c) {
      for (int64_t r = c * per_chunk; r < std::min(rows, (c + 1) * per_chunk); ++r) {
        if (doubling)
          double_line(src + r * ax.in, dst + r * ax.out, ax.in);
        else if (last_axis)
          resample_line(src + r * ax.in, dst + r * ax.out, ax.in, ax.out, t);
        else
          resample_rows(src + r / ax.out * ax.in * inner, dst + r * inner, r % ax.out, inner, t);
      }
    };
    parallel_for(threads, chunks, chunk, static_cast<double>(rows * row * t.width));
  }

  // Whether the pass copies every input element twice in a row (nearest 2x upsampling with the usual modes).
  bool doubles(const AxisPlan& ax, const TapTable& t) const {
    if (a_.mode != Mode::Nearest || a_.coordinates == Coordinates::TfCropAndResize || ax.out != 2 * ax.in)
      return false;
    for (int64_t j = 0; j < ax.out; ++j) {
      if (t.index[j] != j / 2) return false;
    }
    return true;
  }

  // The line form of a doubling pass: a flat loop with paired stores, which the compiler vectorises.
  static void double_line(const float* from, float* to, int64_t in) {
    for (int64_t i = 0; i < in; ++i) {
      const float v = canonicalize(from[i]);
      to[2 * i] = v;
      to[2 * i + 1] = v;
    }
  }

  // Output position j of a pass whose rows hold `inner` contiguous elements each.
  void resample_rows(const float* from, float* to, int64_t j, int64_t inner, const TapTable& t) const {
    const int32_t n = t.count[j];
    const int64_t* index = t.index + j * t.width;
    const float* weight = t.weight + j * t.width;
    if (n < 0) {
      std::fill(to, to + inner, a_.extrapolation);
    } else if (a_.mode == Mode::Nearest) {
      const float* row = from + index[0] * inner;
      for (int64_t i = 0; i < inner; ++i) to[i] = canonicalize(row[i]);
    } else {
      std::fill(to, to + inner, 0.0f);
      for (int32_t k = 0; k < n; ++k) {
        const float* row = from + index[k] * inner;
        const float w = weight[k];
        for (int64_t i = 0; i < inner; ++i) to[i] = to[i] + w * row[i];
      }
      for (int64_t i = 0; i < inner; ++i) to[i] = canonicalize(to[i]);
    }
  }

  // A whole line along the innermost axis: every output gathers its taps.
  void resample_line(const float* from, float* to, int64_t in, int64_t out, const TapTable& t) const {
    const bool crop = a_.coordinates == Coordinates::TfCropAndResize;
    if (a_.mode == Mode::Nearest && !crop) {
      for (int64_t j = 0; j < out; ++j) to[j] = canonicalize(from[t.index[j]]);
      return;
    }
    if (!crop && (t.width == 2 || t.width == 4) && all_finite(from, in)) {
      if (t.width == 2)
        line_finite<2>(from, to, out, t);
      else
        line_finite<4>(from, to, out, t);
      return;
    }
    for (int64_t j = 0; j < out; ++j) {
      const int32_t n = t.count[j];
      const int64_t* index = t.index + j * t.width;
      const float* weight = t.weight + j * t.width;
      if (n < 0) {
        to[j] = a_.extrapolation;
      } else if (a_.mode == Mode::Nearest) {
        to[j] = canonicalize(from[index[0]]);
      } else {
        float sum = 0.0f;
        for (int32_t k = 0; k < n; ++k) sum = sum + weight[k] * from[index[k]];
        to[j] = canonicalize(sum);
      }
    }
  }

  static bool all_finite(const float* data, int64_t n) {
    uint32_t special = 0;
    for (int64_t i = 0; i < n; ++i) {
      special |= static_cast<uint32_t>((__builtin_bit_cast(uint32_t, data[i]) & 0x7F800000u) == 0x7F800000u);
    }
    return special == 0;
  }

  // resample_line() over a line without infinities or NaN: every cell of the table, zero weights included,
  // joins the sum. A zero-weight product is then +0 or -0 and adding it leaves the sum (never -0) unchanged,
  // so the result equals the sum of the non-zero taps, without per-output branches.
  template <int kWidth>
  static void line_finite(const float* from, float* to, int64_t out, const TapTable& t) {
    for (int64_t j = 0; j < out; ++j) {
      const int64_t* index = t.index + j * kWidth;
      const float* weight = t.weight + j * kWidth;
      float sum = 0.0f;
      for (int k = 0; k < kWidth; ++k) sum = sum + weight[k] * from[index[k]];
      to[j] = canonicalize(sum);
    }
  }

  // tf_crop_and_resize: every output position outside the crop region on axis d becomes the extrapolation
  // value, also where a later pass along another axis mixed it with values inside.
  void extrapolate(TensorRef& y, int d, const TapTable& t) const {
    const int64_t outer = y.shape.count(0, d), extent = y.shape[d],
                  inner = y.shape.count(d + 1, y.shape.rank);
    float* data = y.as<float>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < extent; ++j) {
        if (t.count[j] >= 0) continue;
        float* row = data + (o * extent + j) * inner;
        std::fill(row, row + inner, canonicalize(a_.extrapolation));
      }
    }
  }

  static void copy_canonical(const float* src, float* dst, int64_t n, const ThreadContext& threads) {
    for_each_chunk(threads, n, 0.25, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) dst[i] = canonicalize(src[i]);
    });
  }

  ResizeAttributes a_;
};

template <class E>
E choose(const NodeInfo& node, std::string_view name, std::string_view fallback,
         std::initializer_list<std::pair<std::string_view, E>> choices) {
  const std::string value = node.get_string(name, fallback);
  for (const auto& [text, e] : choices) {
    if (value == text) return e;
  }
  node.fail(std::string(name) + " '" + value + "' is not a known value");
}

Mode parse_mode(const NodeInfo& node, bool bilinear) {
  const std::string value = node.get_string("mode", "nearest");
  if (value == "nearest") return Mode::Nearest;
  if (value == "linear" || (bilinear && value == "bilinear")) return Mode::Linear;
  if (value == "cubic" && !bilinear && node.opset() >= 11) return Mode::Cubic;
  node.fail("mode '" + value + "' is not a known value");
}

}  // namespace

std::unique_ptr<OpKernel> make_resize(const NodeInfo& node) {
  ResizeAttributes a;
  a.mode = parse_mode(node, false);
  if (node.opset() < 11) {
    require_inputs(node, 2, 2);
    a.scales_input = 1;
    return std::make_unique<Resize>(std::move(a));
  }
  require_inputs(node, 1, 4);
  a.roi_input = 1;
  a.scales_input = 2;
  a.sizes_input = 3;
  a.coordinates = choose<Coordinates>(node, "coordinate_transformation_mode", "half_pixel",
                                      {{"half_pixel", Coordinates::HalfPixel},
                                       {"pytorch_half_pixel", Coordinates::PytorchHalfPixel},
                                       {"align_corners", Coordinates::AlignCorners},
                                       {"asymmetric", Coordinates::Asymmetric},
                                       {"tf_half_pixel_for_nn", Coordinates::TfHalfPixelForNn},
                                       {"half_pixel_symmetric", Coordinates::HalfPixelSymmetric},
                                       {"tf_crop_and_resize", Coordinates::TfCropAndResize}});
  a.rounding = choose<Rounding>(node, "nearest_mode", "round_prefer_floor",
                                {{"round_prefer_floor", Rounding::RoundPreferFloor},
                                 {"round_prefer_ceil", Rounding::RoundPreferCeil},
                                 {"floor", Rounding::Floor},
                                 {"ceil", Rounding::Ceil}});
  a.policy = choose<AspectPolicy>(node, "keep_aspect_ratio_policy", "stretch",
                                  {{"stretch", AspectPolicy::Stretch},
                                   {"not_larger", AspectPolicy::NotLarger},
                                   {"not_smaller", AspectPolicy::NotSmaller}});
  a.cubic_a = node.get_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = node.get_int("exclude_outside", 0) != 0;
  a.extrapolation = node.get_float("extrapolation_value", 0.0f);
  a.antialias = node.get_int("antialias", 0) != 0;
  a.axes = node.get_ints("axes");
  return std::make_unique<Resize>(std::move(a));
}

// Upsample is Resize with asymmetric coordinates and floor rounding; opset 7 gives the scales as an
// attribute.
std::unique_ptr<OpKernel> make_upsample(const NodeInfo& node) {
  ResizeAttributes a;
  a.mode = parse_mode(node, true);
  if (node.opset() < 9) {
    require_inputs(node, 1, 1);
    a.scales_attribute = node.get_floats("scales");
    if (a.scales_attribute.empty()) node.fail("scales is required");
  } else {
    require_inputs(node, 2, 2);
    a.scales_input = 1;
  }
  return std::make_unique<Resize>(std::move(a));
}

}  // namespace onemodel::ops

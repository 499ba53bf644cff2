// RoiAlign: each region of interest [x1, y1, x2, y2] (scaled by spatial_scale) of image batch_indices[r] is
// cut into output_height x output_width bins; a bin is the average (mode "avg") or the largest weighted
// neighbour (mode "max", ops-coverage.md "Settled semantics") of a regular grid of bilinear samples.
// Not exact (ops-coverage.md "Exactness"): the sample positions and weights follow ONNX Runtime's float
// order, which is not a documented fixed order.
#include <algorithm>
#include <cmath>
#include <string>

#include "graph/ops/run_fail.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

constexpr int64_t kMaxSamples = 1024;  // per bin and axis

struct RoiAlignAttributes {
  bool max_mode = false;
  bool half_pixel = true;
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  float spatial_scale = 1.0f;
};

// The four neighbours of a sample and their bilinear weights; a sample outside [-1, extent] has no weight.
struct Sample {
  int64_t at[4] = {0, 0, 0, 0};
  float weight[4] = {0.0f, 0.0f, 0.0f, 0.0f};
};

// Clamps a sample coordinate into the plane the way the neighbour lookup needs it: position, low and high
// neighbour, and the fraction towards the high one.
void neighbours(float v, int64_t extent, int64_t& low, int64_t& high, float& frac) {
  v = std::max(v, 0.0f);
  low = static_cast<int64_t>(v);
  if (low >= extent - 1) {
    low = high = extent - 1;
    v = static_cast<float>(low);
  } else {
    high = low + 1;
  }
  frac = v - static_cast<float>(low);
}

Sample sample_at(float y, float x, int64_t height, int64_t width) {
  Sample s;
  // Written so that a NaN position also has no weight.
  if (!(y >= -1.0f && y <= static_cast<float>(height) && x >= -1.0f && x <= static_cast<float>(width)))
    return s;
  int64_t y_lo, y_hi, x_lo, x_hi;
  float ly, lx;
  neighbours(y, height, y_lo, y_hi, ly);
  neighbours(x, width, x_lo, x_hi, lx);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  s.at[0] = y_lo * width + x_lo;
  s.at[1] = y_lo * width + x_hi;
  s.at[2] = y_hi * width + x_lo;
  s.at[3] = y_hi * width + x_hi;
  s.weight[0] = hy * hx;
  s.weight[1] = hy * lx;
  s.weight[2] = ly * hx;
  s.weight[3] = ly * lx;
  return s;
}

class RoiAlign final : public OpKernel {
 public:
  explicit RoiAlign(RoiAlignAttributes a) : a_(a) { supports_exact = false; }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    const Shape& rois = ctx.input_shape(1);
    const Shape& indices = ctx.input_shape(2);
    if (ctx.input_dtype(0) != DType::F32 || ctx.input_dtype(1) != DType::F32)
      ctx.node().unsupported("only float32 (and half precision) X and rois are served");
    if (ctx.input_dtype(2) != DType::I64 && ctx.input_dtype(2) != DType::I32)
      ctx.fail("batch_indices must be int64 or int32");
    if (x.rank != 4) ctx.fail("X must be [N, C, H, W], got " + x.str());
    if (rois.rank != 2 || rois[1] != 4) ctx.fail("rois must be [num_rois, 4], got " + rois.str());
    if (indices.rank != 1 || indices[0] != rois[0])
      ctx.fail("batch_indices " + indices.str() + " must be [num_rois] for rois " + rois.str());
    const Shape out{rois[0], x[1], a_.out_h, a_.out_w};
    ctx.set_output(0, DType::F32, out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const float* rois = run.inputs[1].as<const float>();
    const TensorRef& indices = run.inputs[2];
    const int64_t channels = x.shape[1], height = x.shape[2], width = x.shape[3];
    const int64_t plane = height * width, bins = a_.out_h * a_.out_w;
    float* out = run.outputs[0].as<float>();
    const float offset = a_.half_pixel ? 0.5f : 0.0f;
    for (int64_t r = 0; r < run.inputs[1].shape[0]; ++r) {
      const int64_t raw =
          indices.dtype == DType::I64 ? indices.as<const int64_t>()[r] : indices.as<const int32_t>()[r];
      if (raw < 0 || raw >= x.shape[0])
        run_fail(run, "batch index " + std::to_string(raw) + " is outside [0, " + std::to_string(x.shape[0]) +
                          ")");
      if (plane == 0) {  // an empty image has nothing to sample: its bins are 0
        std::fill(out + r * channels * bins, out + (r + 1) * channels * bins, 0.0f);
        continue;
      }
      const float* roi = rois + r * 4;
      const float start_w = roi[0] * a_.spatial_scale - offset, start_h = roi[1] * a_.spatial_scale - offset;
      float roi_w = roi[2] * a_.spatial_scale - offset - start_w;
      float roi_h = roi[3] * a_.spatial_scale - offset - start_h;
      if (!a_.half_pixel) {
        roi_w = std::max(roi_w, 1.0f);
        roi_h = std::max(roi_h, 1.0f);
      }
      const float bin_h = roi_h / static_cast<float>(a_.out_h), bin_w = roi_w / static_cast<float>(a_.out_w);
      const int64_t grid_h = grid_extent(roi_h, a_.out_h), grid_w = grid_extent(roi_w, a_.out_w);
      const float count = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
      const float* image = x.as<const float>() + raw * channels * plane;
      for (int64_t ph = 0; ph < a_.out_h; ++ph) {
        for (int64_t pw = 0; pw < a_.out_w; ++pw) {
          for (int64_t c = 0; c < channels; ++c) {
            const float* in = image + c * plane;
            float acc = 0.0f;
            bool first = true;
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              const float y = start_h + static_cast<float>(ph) * bin_h +
                              (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h);
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                const float xs = start_w + static_cast<float>(pw) * bin_w +
                                 (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w);
                const Sample s = sample_at(y, xs, height, width);
                if (a_.max_mode) {
                  for (int k = 0; k < 4; ++k) {
                    const float v = s.weight[k] * in[s.at[k]];
                    acc = first ? v : std::max(acc, v);
                    first = false;
                  }
                } else {
                  acc += s.weight[0] * in[s.at[0]] + s.weight[1] * in[s.at[1]] + s.weight[2] * in[s.at[2]] +
                         s.weight[3] * in[s.at[3]];
                }
              }
            }
            out[((r * channels + c) * a_.out_h + ph) * a_.out_w + pw] = a_.max_mode ? acc : acc / count;
          }
        }
      }
    }
  }

 private:
  // Samples per bin along an axis: sampling_ratio, or ceil(region / bins) when it is 0. The adaptive count is
  // capped like an explicit sampling_ratio, so a hostile region cannot ask for billions of samples per bin.
  int64_t grid_extent(float region, int64_t bins) const {
    if (a_.sampling_ratio > 0) return a_.sampling_ratio;
    const float n = std::ceil(region / static_cast<float>(bins));
    if (!(n > 0.0f)) return 0;  // empty or NaN region: the bin averages nothing and stays 0
    return static_cast<int64_t>(std::min(n, static_cast<float>(kMaxSamples)));
  }

  RoiAlignAttributes a_;
};

}  // namespace

std::unique_ptr<OpKernel> make_roi_align(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  RoiAlignAttributes a;
  const std::string mode = node.get_string("mode", "avg");
  if (mode != "avg" && mode != "max") node.fail("mode '" + mode + "' is not avg or max");
  a.max_mode = mode == "max";
  const std::string transform = node.get_string("coordinate_transformation_mode",
                                                node.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    node.fail("coordinate_transformation_mode '" + transform + "' is not half_pixel or output_half_pixel");
  a.half_pixel = transform == "half_pixel";
  a.out_h = node.get_int("output_height", 1);
  a.out_w = node.get_int("output_width", 1);
  a.sampling_ratio = node.get_int("sampling_ratio", 0);
  a.spatial_scale = node.get_float("spatial_scale", 1.0f);
  if (a.out_h < 1 || a.out_w < 1 || a.out_h > kMaxElements || a.out_w > kMaxElements)
    node.fail("output_height and output_width must be positive");
  if (a.sampling_ratio < 0 || a.sampling_ratio > kMaxSamples)
    node.fail("sampling_ratio must lie in [0, " + std::to_string(kMaxSamples) + "]");
  return std::make_unique<RoiAlign>(a);
}

}  // namespace onemodel::ops

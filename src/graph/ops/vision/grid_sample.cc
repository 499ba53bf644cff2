// GridSample (4-D): output (n, c, h, w) samples input plane (n, c) at the grid's normalised position
// grid[n, h, w] = (x, y) in [-1, 1], by nearest, bilinear or bicubic (A = -0.75) interpolation, with zeros,
// border or reflection padding. Positions follow PyTorch's grid_sample, which produced the ONNX test data:
// nearest and bilinear pad the sample position, bicubic pads each of its 16 taps.
// Not exact (ops-coverage.md "Exactness"): the rounding order of the interpolation is not a fixed documented
// one.
#include <cmath>
#include <string>

#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

enum class Interpolation { Nearest, Bilinear, Bicubic };
enum class Padding { Zeros, Border, Reflection };

struct GridAxis {
  int64_t size;
  bool align_corners;
  Padding padding;

  // The normalised coordinate in input pixels.
  float unnormalize(float v) const {
    const float n = static_cast<float>(size);
    return align_corners ? (v + 1.0f) / 2.0f * (n - 1.0f) : ((v + 1.0f) * n - 1.0f) / 2.0f;
  }

  // Border clamps into [0, size - 1]; reflection mirrors at the outer pixel edges (or centres with
  // align_corners) and then clamps; zeros leaves the position alone.
  float pad(float v) const {
    if (padding == Padding::Zeros) return v;
    if (padding == Padding::Reflection) {
      v = align_corners ? reflect(v, 0.0f, 2.0f * static_cast<float>(size - 1))
                        : reflect(v, -1.0f, 2.0f * static_cast<float>(size) - 1.0f);
    }
    return std::fmin(std::fmax(v, 0.0f), static_cast<float>(size - 1));
  }

  static float reflect(float v, float twice_low, float twice_high) {
    if (twice_low == twice_high) return 0.0f;
    const float low = twice_low / 2.0f, span = (twice_high - twice_low) / 2.0f;
    v = std::fabs(v - low);
    const float extra = std::fmod(v, span);
    const float flips = std::floor(v / span);
    return std::fmod(flips, 2.0f) == 0.0f ? extra + low : span - extra + low;
  }
};

// Cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 around a fraction t.
void cubic_weights(float t, float w[4]) {
  constexpr float A = -0.75f;
  const float t1 = t + 1.0f, u = 1.0f - t, u1 = 2.0f - t;
  w[0] = ((A * t1 - 5.0f * A) * t1 + 8.0f * A) * t1 - 4.0f * A;
  w[1] = ((A + 2.0f) * t - (A + 3.0f)) * t * t + 1.0f;
  w[2] = ((A + 2.0f) * u - (A + 3.0f)) * u * u + 1.0f;
  w[3] = ((A * u1 - 5.0f * A) * u1 + 8.0f * A) * u1 - 4.0f * A;
}

class GridSample final : public OpKernel {
 public:
  GridSample(Interpolation mode, Padding padding, bool align_corners)
      : mode_(mode), padding_(padding), align_corners_(align_corners) {
    supports_exact = false;
  }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    const Shape& grid = ctx.input_shape(1);
    if (ctx.input_dtype(0) != DType::F32 || ctx.input_dtype(1) != DType::F32)
      ctx.node().unsupported("only float32 (and half precision) X and grid are served");
    if (x.rank != 4) ctx.node().unsupported("only 4-D inputs [N, C, H, W] are served, got " + x.str());
    if (grid.rank != 4 || grid[0] != x[0] || grid[3] != 2)
      ctx.fail("grid " + grid.str() + " must be [N, H_out, W_out, 2] for X " + x.str());
    ctx.set_output(0, DType::F32, Shape{x[0], x[1], grid[1], grid[2]});
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const TensorRef& grid = run.inputs[1];
    const int64_t batch = x.shape[0], channels = x.shape[1];
    const GridAxis ax{x.shape[3], align_corners_, padding_}, ay{x.shape[2], align_corners_, padding_};
    const int64_t plane = ax.size * ay.size, points = grid.shape[1] * grid.shape[2];
    float* out = run.outputs[0].as<float>();
    for (int64_t n = 0; n < batch; ++n) {
      const float* g = grid.as<const float>() + n * points * 2;
      for (int64_t c = 0; c < channels; ++c) {
        const float* in = x.as<const float>() + (n * channels + c) * plane;
        float* o = out + (n * channels + c) * points;
        for (int64_t p = 0; p < points; ++p) o[p] = sample(in, ax, ay, g[p * 2], g[p * 2 + 1]);
      }
    }
  }

 private:
  float sample(const float* in, const GridAxis& ax, const GridAxis& ay, float gx, float gy) const {
    const float x = ax.unnormalize(gx), y = ay.unnormalize(gy);
    // The pixel at integer (row, col), or 0 outside the plane (zeros padding, or a NaN position).
    auto at = [&](float row, float col) {
      if (!(row >= 0.0f && row < static_cast<float>(ay.size) && col >= 0.0f &&
            col < static_cast<float>(ax.size)))
        return 0.0f;
      return in[static_cast<int64_t>(row) * ax.size + static_cast<int64_t>(col)];
    };
    if (mode_ == Interpolation::Bicubic) {
      const float x0 = std::floor(x), y0 = std::floor(y);
      float wx[4], wy[4];
      cubic_weights(x - x0, wx);
      cubic_weights(y - y0, wy);
      float acc = 0.0f;
      for (int i = 0; i < 4; ++i) {
        const float row = ay.pad(y0 - 1.0f + static_cast<float>(i));
        float line = 0.0f;
        for (int j = 0; j < 4; ++j) line += wx[j] * at(row, ax.pad(x0 - 1.0f + static_cast<float>(j)));
        acc += wy[i] * line;
      }
      return acc;
    }
    const float px = ax.pad(x), py = ay.pad(y);
    if (mode_ == Interpolation::Nearest) return at(std::nearbyint(py), std::nearbyint(px));
    const float x0 = std::floor(px), y0 = std::floor(py);
    const float fx = px - x0, fy = py - y0;
    const float top = (1.0f - fx) * at(y0, x0) + fx * at(y0, x0 + 1.0f);
    const float bottom = (1.0f - fx) * at(y0 + 1.0f, x0) + fx * at(y0 + 1.0f, x0 + 1.0f);
    return (1.0f - fy) * top + fy * bottom;
  }

  Interpolation mode_;
  Padding padding_;
  bool align_corners_;
};

}  // namespace

std::unique_ptr<OpKernel> make_grid_sample(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  // Opset 20 renamed bilinear and bicubic to linear and cubic.
  const std::string mode = node.get_string("mode", node.opset() >= 20 ? "linear" : "bilinear");
  Interpolation interpolation;
  if (mode == "nearest") {
    interpolation = Interpolation::Nearest;
  } else if (mode == "bilinear" || mode == "linear") {
    interpolation = Interpolation::Bilinear;
  } else if (mode == "bicubic" || mode == "cubic") {
    interpolation = Interpolation::Bicubic;
  } else {
    node.fail("mode '" + mode + "' is not nearest, linear or cubic");
  }
  const std::string padding_mode = node.get_string("padding_mode", "zeros");
  Padding padding;
  if (padding_mode == "zeros") {
    padding = Padding::Zeros;
  } else if (padding_mode == "border") {
    padding = Padding::Border;
  } else if (padding_mode == "reflection") {
    padding = Padding::Reflection;
  } else {
    node.fail("padding_mode '" + padding_mode + "' is not zeros, border or reflection");
  }
  const int64_t align = node.get_int("align_corners", 0);
  if (align != 0 && align != 1) node.fail("align_corners must be 0 or 1");
  return std::make_unique<GridSample>(interpolation, padding, align == 1);
}

}  // namespace onemodel::ops

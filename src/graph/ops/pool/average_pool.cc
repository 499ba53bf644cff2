// AveragePool and GlobalAveragePool, float32 (ops-conv.md "Pooling"). A window's taps inside the input are
// summed in depth, height, width order from +0 and the sum is divided (not multiplied by a reciprocal) by the
// number of taps inside the input, or with count_include_pad by those inside the input or its declared
// padding. A window with no counted tap gives NaN. Separately rounded operations only, so fast and exact
// mode give the same bits; NaN results are canonical in both.
#include <string>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/pool/factories.h"
#include "graph/ops/pool/pool_geometry.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// n outputs of one row whose windows lie inside the input (all kh * kw taps count either way); window i's
// first tap is first[i * stride]. As for MaxPool: unrolled taps for the fixed shapes, taps outside and
// outputs inside for any other; the same order of additions either way, vectorised across outputs.
template <int kKh, int kKw, int kStride>
void average_row(const float* first, int64_t row_pitch, float* out, int64_t n) {
  const float divisor = static_cast<float>(kKh * kKw);
  for (int64_t i = 0; i < n; ++i) {
    const float* p = first + i * kStride;
    float sum = 0.0f;
    for (int a = 0; a < kKh; ++a) {
      for (int b = 0; b < kKw; ++b) sum = sum + p[a * row_pitch + b];
    }
    out[i] = canonicalize(sum / divisor);
  }
}

// kStride 0: the stride is a run-time value.
template <int kStride>
void average_row_any(const float* first, int64_t row_pitch, int64_t kh, int64_t kw, int64_t stride,
                     float* out, int64_t n) {
  const int64_t step = kStride != 0 ? kStride : stride;
  const float divisor = static_cast<float>(kh * kw);
  for (int64_t i = 0; i < n; ++i) out[i] = 0.0f;
  for (int64_t a = 0; a < kh; ++a) {
    for (int64_t b = 0; b < kw; ++b) {
      const float* tap = first + a * row_pitch + b;
      for (int64_t i = 0; i < n; ++i) out[i] = out[i] + tap[i * step];
    }
  }
  for (int64_t i = 0; i < n; ++i) out[i] = canonicalize(out[i] / divisor);
}

// One plane of AveragePool.
struct AverageWindows {
  const PoolGeometry& g;
  const float* in;
  float* out;
  bool count_pad;

  void at(int64_t od, int64_t oh, int64_t ow) const {
    const PoolAxis &d = g.axes[0], &h = g.axes[1], &x = g.axes[2];
    const TapRange rd = d.inside(od), rh = h.inside(oh), rw = x.inside(ow);
    const float sum = window_sum(g, in, od, oh, ow, [](float v) { return v; });
    // In double, exact below 2^53: huge windows over padding may count beyond int64.
    const double count = count_pad ? static_cast<double>(d.padded_count(od)) *
                                         static_cast<double>(h.padded_count(oh)) *
                                         static_cast<double>(x.padded_count(ow))
                                   : static_cast<double>(rd.count()) * static_cast<double>(rh.count()) *
                                         static_cast<double>(rw.count());
    out[(od * h.out + oh) * x.out + ow] = canonicalize(sum / static_cast<float>(count));
  }

  void row(int64_t od, int64_t oh, int64_t begin, int64_t end) const {
    const PoolAxis &d = g.axes[0], &h = g.axes[1], &x = g.axes[2];
    const float* first = in + (d.start(od) * h.in + h.start(oh)) * x.in + x.start(begin);
    float* dst = out + (od * h.out + oh) * x.out + begin;
    const int64_t n = end - begin;
    if (h.kernel == 2 && x.kernel == 2 && x.stride == 2)
      average_row<2, 2, 2>(first, x.in, dst, n);
    else if (h.kernel == 3 && x.kernel == 3 && x.stride == 1)
      average_row<3, 3, 1>(first, x.in, dst, n);
    else if (h.kernel == 3 && x.kernel == 3 && x.stride == 2)
      average_row<3, 3, 2>(first, x.in, dst, n);
    else if (x.stride == 1)
      average_row_any<1>(first, x.in, h.kernel, x.kernel, 1, dst, n);
    else if (x.stride == 2)
      average_row_any<2>(first, x.in, h.kernel, x.kernel, 2, dst, n);
    else
      average_row_any<0>(first, x.in, h.kernel, x.kernel, x.stride, dst, n);
  }
};

class AveragePool final : public FloatWindowPool {
 public:
  AveragePool(const NodeInfo& node, bool count_pad)
      : FloatWindowPool(PoolAttributes(node, node.opset() >= 19)), count_pad_(count_pad) {
    supports_exact = true;
  }

  void run(const OpRun& run) const override {
    run_planes(run, 0.5, true, [&](const PoolGeometry& g, const float* in, float* out) {
      return AverageWindows{g, in, out, count_pad_};
    });
  }

 private:
  bool count_pad_;
};

class GlobalAveragePool final : public OpKernel {
 public:
  GlobalAveragePool() { supports_exact = true; }
  void infer(InferContext& ctx) const override { infer_global_pool(ctx); }
  void run(const OpRun& run) const override {
    const float count = static_cast<float>(run.inputs[0].shape.count(2, run.inputs[0].shape.rank));
    fold_planes(
        run, 0.0f, [](float sum, float v) { return sum + v; },
        [count](float sum) { return canonicalize(sum / count); });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_average_pool(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  const int64_t count_pad = node.get_int("count_include_pad", 0);
  if (count_pad != 0 && count_pad != 1) node.fail("count_include_pad must be 0 or 1");
  return std::make_unique<AveragePool>(node, count_pad == 1);
}

std::unique_ptr<OpKernel> make_global_average_pool(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<GlobalAveragePool>();
}

}  // namespace onemodel::ops

// MeanVarianceNormalization, float32: over each group of elements that share their position on the axes not
// in `axes` (default {0, 2, 3}: per channel of NCHW), y = (x - mean) / (sqrt(var) + 1e-9), the epsilon of
// ONNX's function body, so a group without spread gives zeros. Unlike that body, var is the two-pass Sum16((x
// - mean)^2) / n, which does not cancel. Sums are canonical (ops-norms.md) over the group's elements in
// memory order and every operation rounds on its own: fast and exact give the same bits on every path and
// thread count.
#include <cmath>
#include <vector>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/norm/factories.h"
#include "graph/ops/reduce/canonical_sum.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

constexpr float kEpsilon = 1e-9f;

class MeanVarianceNorm final : public OpKernel {
 public:
  explicit MeanVarianceNorm(std::vector<int64_t> axes) : axes_(std::move(axes)) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) unsupported_type(ctx, ctx.input_dtype(0));
    axes_mask(ctx, axes_, ctx.input_shape(0).rank);  // fails on a bad axis
    ctx.set_output(0, DType::F32, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const Shape& shape = x.shape;
    const uint32_t mask = axes_bits(shape.rank);
    int64_t groups = 1, n = 1;
    for (int a = 0; a < shape.rank; ++a) (has_axis(mask, a) ? n : groups) *= shape[a];
    if (groups == 0 || n == 0) return;
    // Offsets of one group's elements (the reduced axes) and of each group's first element (the kept axes).
    int64_t* inner = run.scratch->allocate_array<int64_t>(static_cast<size_t>(n));
    int64_t* outer = run.scratch->allocate_array<int64_t>(static_cast<size_t>(groups));
    axis_offsets(shape, mask, true, inner);
    axis_offsets(shape, mask, false, outer);
    const float* src = x.as<const float>();
    float* dst = run.outputs[0].as<float>();
    const auto count = static_cast<float>(n);
    auto group = [&](int64_t g) {
      const float* in = src + outer[g];
      float* out = dst + outer[g];
      const float mean = canonical_sum(n, [&](int64_t j) { return in[inner[j]]; }) / count;
      const float var = canonical_sum(n,
                                      [&](int64_t j) {
                                        const float d = in[inner[j]] - mean;
                                        return d * d;
                                      }) /
                        count;
      const float denominator = std::sqrt(var) + kEpsilon;
      for (int64_t j = 0; j < n; ++j) out[inner[j]] = canonicalize((in[inner[j]] - mean) / denominator);
    };
    parallel_for(run.threads, groups, group, 6.0 * static_cast<double>(x.count()));
  }

 private:
  uint32_t axes_bits(int rank) const {
    uint32_t mask = 0;
    for (int64_t a : axes_) mask |= 1u << (a < 0 ? a + rank : a);  // checked by infer
    return mask;
  }

  // The element offsets of every position on the axes whose bit in `mask` equals `reduced`, in increasing
  // order (the last such axis fastest): each axis in turn, slowest first, expands every offset so far into
  // extent offsets, in place from the back.
  static void axis_offsets(const Shape& shape, uint32_t mask, bool reduced, int64_t* offsets) {
    int64_t strides[kMaxRank];
    int64_t stride = 1;
    for (int a = shape.rank - 1; a >= 0; --a) {
      strides[a] = stride;
      stride *= shape[a];
    }
    int64_t size = 1;
    offsets[0] = 0;
    for (int a = 0; a < shape.rank; ++a) {
      if (has_axis(mask, a) != reduced) continue;
      const int64_t extent = shape[a];
      for (int64_t i = size - 1; i >= 0; --i) {
        const int64_t base = offsets[i];
        for (int64_t k = extent - 1; k >= 0; --k) offsets[i * extent + k] = base + k * strides[a];
      }
      size *= extent;
    }
  }

  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_mean_variance_norm(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<MeanVarianceNorm>(node.get_ints("axes", {0, 2, 3}));
}

}  // namespace onemodel::ops

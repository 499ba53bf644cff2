// Slice: a strided window per listed axis, with ONNX Runtime's reading of the end sentinels
// (ops-shape-indexing.md §3). Starts/ends/axes are attributes before opset 10 and inputs from then on.
#include <algorithm>
#include <limits>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/mapped_copy.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

struct SliceGeometry {
  Shape out;
  int64_t start[kMaxRank];
  int64_t step[kMaxRank];
};

// Fills `g` for an input of shape `in`; returns the problem, or nullptr when the lists are valid.
const char* slice_geometry(const Shape& in, IntSeq starts, IntSeq ends, IntSeq axes, IntSeq steps,
                           SliceGeometry& g) {
  const size_t k = starts.size();
  if (ends.size() != k) return "starts and ends have different lengths";
  if (!axes.empty() && axes.size() != k) return "axes and starts have different lengths";
  if (!steps.empty() && steps.size() != k) return "steps and starts have different lengths";
  if (k > static_cast<size_t>(in.rank)) return "lists more axes than the input has";
  g.out = in;
  for (int a = 0; a < in.rank; ++a) {
    g.start[a] = 0;
    g.step[a] = 1;
  }
  uint32_t seen = 0;
  for (size_t j = 0; j < k; ++j) {
    const int axis = axes.empty() ? static_cast<int>(j) : normalize_axis(axes[j], in.rank);
    if (axis < 0) return "an axis is outside the input's rank";
    if ((seen >> axis) & 1u) return "an axis is listed twice";
    seen |= 1u << axis;
    // A step beyond the int32 range selects at most one element, so clamping it changes nothing.
    const int64_t step =
        std::clamp<int64_t>(steps.empty() ? 1 : steps[j], std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max());
    if (step == 0) return "a step is 0";
    const int64_t n = in[axis];
    int64_t start = starts[j], end = ends[j];
    // With a negative step, an end of INT32_MAX or INT64_MAX means "through element 0" (ONNX Runtime).
    const bool to_front = step < 0 && (end == std::numeric_limits<int32_t>::max() ||
                                       end == std::numeric_limits<int64_t>::max());
    if (start < 0) start += n;
    if (end < 0) end += n;
    int64_t count = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, n);
      end = std::clamp<int64_t>(end, 0, n);
      if (end > start) count = (end - start + step - 1) / step;
    } else if (n > 0) {
      start = std::clamp<int64_t>(start, 0, n - 1);
      end = to_front ? -1 : std::clamp<int64_t>(end, -1, n - 1);
      if (start > end) count = (start - end - step - 1) / -step;
    }
    g.out[axis] = count;
    g.start[axis] = start;
    g.step[axis] = step;
  }
  return nullptr;
}

class Slice final : public OpKernel {
 public:
  // Before opset 10 the lists are attributes; from 10 they are inputs 1-4 and these stay empty.
  Slice(std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes, bool from_inputs)
      : starts_(std::move(starts)),
        ends_(std::move(ends)),
        axes_(std::move(axes)),
        from_inputs_(from_inputs) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    SliceGeometry g;
    const char* problem;
    if (from_inputs_) {
      const auto starts = int_seq_input(ctx, 1, "starts");
      const auto ends = int_seq_input(ctx, 2, "ends");
      const auto axes = int_seq_input(ctx, 3, "axes");
      const auto steps = int_seq_input(ctx, 4, "steps");
      if (!starts || !ends || !axes || !steps) return;
      problem = slice_geometry(ctx.input_shape(0), *starts, *ends, *axes, *steps, g);
    } else {
      problem = slice_geometry(ctx.input_shape(0), starts_, ends_, axes_, {}, g);
    }
    if (problem != nullptr) ctx.fail(problem);
    ctx.set_output(0, ctx.input_dtype(0), g.out);
  }

  void run(const OpRun& run) const override {
    SliceGeometry g;
    const Shape& in = run.inputs[0].shape;
    if (from_inputs_) {
      auto list = [&](size_t i) { return run.has_input(i) ? IntSeq::of(run.inputs[i]) : IntSeq{}; };
      slice_geometry(in, list(1), list(2), list(3), list(4), g);
    } else {
      slice_geometry(in, starts_, ends_, axes_, {}, g);
    }
    const TensorRef& out = run.outputs[0];
    const AxisMaps maps = allocate_axis_maps(*run.scratch, out.shape);
    for (int a = 0; a < out.shape.rank; ++a) {
      for (int64_t i = 0; i < out.shape[a]; ++i)
        maps.axis[a][i] = static_cast<int32_t>(g.start[a] + i * g.step[a]);
    }
    mapped_copy(run.inputs[0], out, maps, nullptr);
  }

 private:
  std::vector<int64_t> starts_, ends_, axes_;
  bool from_inputs_;
};

}  // namespace

std::unique_ptr<OpKernel> make_slice(const NodeInfo& node) {
  if (node.opset() >= 10) {
    require_inputs(node, 3, 5);
    return std::make_unique<Slice>(std::vector<int64_t>{}, std::vector<int64_t>{}, std::vector<int64_t>{},
                                   true);
  }
  require_inputs(node, 1, 1);
  if (node.find("starts") == nullptr || node.find("ends") == nullptr) node.fail("needs starts and ends");
  return std::make_unique<Slice>(node.get_ints("starts"), node.get_ints("ends"), node.get_ints("axes"),
                                 false);
}

}  // namespace onemodel::ops

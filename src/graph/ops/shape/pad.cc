// Pad: constant, edge, reflect (continued periodically beyond one reflection) and wrap modes; a negative pad
// crops (ops-shape-indexing.md §4), and the modes then act on what remains (as ONNX Runtime does: a wrap
// period is the cropped extent). Pads and the value are attributes before opset 11 and inputs from then on.
#include <algorithm>
#include <cstring>
#include <string>

#include "graph/ops/elementwise/cast.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/mapped_copy.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

enum class PadMode { Constant, Edge, Reflect, Wrap };

// The input coordinate read at input position j of an axis whose kept window (what negative pads leave) is
// [lo, lo + n): j outside it lies in the padding. Returns -1 for the fill value.
int64_t source_coordinate(PadMode mode, int64_t j, int64_t lo, int64_t n) {
  if (j >= lo && j < lo + n) return j;
  const int64_t k = j - lo;
  switch (mode) {
    case PadMode::Constant:
      return -1;
    case PadMode::Edge:
      return lo + std::clamp<int64_t>(k, 0, n - 1);
    case PadMode::Wrap:
      return lo + ((k % n) + n) % n;
    case PadMode::Reflect: {
      if (n == 1) return lo;
      const int64_t period = 2 * (n - 1);
      const int64_t m = ((k % period) + period) % period;
      return lo + (m < n ? m : period - m);
    }
  }
  return -1;
}

// The output shape and the leading and trailing pads per axis; returns the problem, or nullptr when the
// lists are valid.
const char* pad_geometry(const Shape& in, PadMode mode, IntSeq pads, IntSeq axes, Shape& out,
                         int64_t begin[kMaxRank], int64_t end[kMaxRank]) {
  const size_t k = axes.empty() ? static_cast<size_t>(in.rank) : axes.size();
  if (pads.size() != 2 * k) return "pads must hold a begin and an end for every padded axis";
  out = in;
  for (int a = 0; a < in.rank; ++a) begin[a] = end[a] = 0;
  uint32_t seen = 0;
  for (size_t j = 0; j < k; ++j) {
    const int axis = axes.empty() ? static_cast<int>(j) : normalize_axis(axes[j], in.rank);
    if (axis < 0) return "an axis is outside the input's rank";
    if ((seen >> axis) & 1u) return "an axis is listed twice";
    seen |= 1u << axis;
    begin[axis] = pads[j];
    end[axis] = pads[j + k];
    for (int64_t pad : {begin[axis], end[axis]}) {
      if (pad < -kMaxElements || pad > kMaxElements) return "a pad is too large";
    }
  }
  for (int a = 0; a < in.rank; ++a) {
    out[a] = in[a] + begin[a] + end[a];
    if (out[a] < 0) return "a negative pad removes more than the axis holds";
    const int64_t kept = in[a] - std::max<int64_t>(0, -begin[a]) - std::max<int64_t>(0, -end[a]);
    if (kept <= 0 && out[a] > 0 && mode != PadMode::Constant)
      return "only constant mode can pad an axis with no element left";
  }
  return nullptr;
}

class Pad final : public OpKernel {
 public:
  // Before opset 11 pads and value are attributes; from 11 they are inputs and these stay unused.
  Pad(PadMode mode, std::vector<int64_t> pads, float value, bool from_inputs)
      : mode_(mode), pads_(std::move(pads)), value_(value), from_inputs_(from_inputs) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    Shape out;
    int64_t begin[kMaxRank], end[kMaxRank];
    const char* problem;
    if (from_inputs_) {
      const auto pads = int_seq_input(ctx, 1, "pads");
      const auto axes = int_seq_input(ctx, 3, "axes");
      if (!pads || !axes) return;
      if (ctx.has_input(2) && (ctx.input_dtype(2) != ctx.input_dtype(0) || ctx.input_shape(2).count() > 1)) {
        ctx.fail("constant_value must be one element of the data's type");
      }
      problem = pad_geometry(in, mode_, *pads, *axes, out, begin, end);
    } else {
      problem = pad_geometry(in, mode_, pads_, {}, out, begin, end);
    }
    if (problem != nullptr) ctx.fail(problem);
    check_dims(ctx, out.span(), dtype_size(ctx.input_dtype(0)), "Pad output");
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    Shape shape;
    int64_t begin[kMaxRank], end[kMaxRank];
    alignas(8) std::byte fill[8] = {};
    if (from_inputs_) {
      const IntSeq axes = run.has_input(3) ? IntSeq::of(run.inputs[3]) : IntSeq{};
      pad_geometry(in.shape, mode_, IntSeq::of(run.inputs[1]), axes, shape, begin, end);
      if (run.has_input(2) && run.inputs[2].count() == 1)
        std::memcpy(fill, run.inputs[2].data, dtype_size(in.dtype));
    } else {
      pad_geometry(in.shape, mode_, pads_, {}, shape, begin, end);
      cast_elements(DType::F32, reinterpret_cast<const std::byte*>(&value_), in.dtype, fill, 1, run.exact);
    }
    const AxisMaps maps = allocate_axis_maps(*run.scratch, out.shape);
    for (int a = 0; a < out.shape.rank; ++a) {
      const int64_t lo = std::max<int64_t>(0, -begin[a]);
      const int64_t kept = in.shape[a] - lo - std::max<int64_t>(0, -end[a]);
      for (int64_t i = 0; i < out.shape[a]; ++i)
        maps.axis[a][i] = static_cast<int32_t>(source_coordinate(mode_, i - begin[a], lo, kept));
    }
    mapped_copy(in, out, maps, fill);
  }

 private:
  PadMode mode_;
  std::vector<int64_t> pads_;
  float value_;
  bool from_inputs_;
};

}  // namespace

std::unique_ptr<OpKernel> make_pad(const NodeInfo& node) {
  const std::string mode_name = node.get_string("mode", "constant");
  PadMode mode;
  if (mode_name == "constant")
    mode = PadMode::Constant;
  else if (mode_name == "edge")
    mode = PadMode::Edge;
  else if (mode_name == "reflect")
    mode = PadMode::Reflect;
  else if (mode_name == "wrap" && node.opset() >= 19)
    mode = PadMode::Wrap;
  else
    node.fail("unknown mode '" + mode_name + "'");
  if (node.opset() >= 11) {
    require_inputs(node, 2, node.opset() >= 18 ? 4 : 3);
    return std::make_unique<Pad>(mode, std::vector<int64_t>{}, 0.0f, true);
  }
  require_inputs(node, 1, 1);
  if (node.find("pads") == nullptr) node.fail("needs the pads attribute");
  return std::make_unique<Pad>(mode, node.get_ints("pads"), node.get_float("value", 0.0f), false);
}

}  // namespace onemodel::ops

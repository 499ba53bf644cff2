// Compress (opset 9+): the slices along `axis` whose entry in the bool vector `condition` is true, or the
// elements of the flattened input when there is no axis. A condition shorter than the axis drops the rest;
// one longer than the axis may only hold false there (a true past the end is an index out of range, as in
// numpy.compress). The output extent counts true values, so a condition that is not a plan-time constant
// makes the node shaped again in every run.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Compress final : public OpKernel {
 public:
  explicit Compress(std::optional<int64_t> axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    const Shape& condition = ctx.input_shape(1);
    if (ctx.input_dtype(1) != DType::Bool || condition.rank != 1)
      ctx.fail("the condition must be a bool vector");
    int axis = -1;
    if (axis_) {
      axis = normalize_axis(*axis_, in.rank);
      if (axis < 0)
        ctx.fail("axis " + std::to_string(*axis_) + " is outside the rank " + std::to_string(in.rank));
    }
    const TensorRef* value = ctx.input_value(1);
    if (value == nullptr) return ctx.require_run_time_values();
    const int64_t extent = axis < 0 ? in.count() : in[axis];
    const uint8_t* keep = value->as<const uint8_t>();
    int64_t kept = 0;
    for (int64_t i = 0; i < condition[0]; ++i) {
      if (keep[i] == 0) continue;
      if (i >= extent)
        ctx.fail("condition entry " + std::to_string(i) + " is true past the extent " +
                 std::to_string(extent));
      ++kept;
    }
    Shape out = in;
    if (axis < 0) {
      out = Shape{kept};
    } else {
      out[axis] = kept;
    }
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    const TensorRef& condition = run.inputs[1];
    const uint8_t* keep = condition.as<const uint8_t>();
    const int axis = axis_ ? normalize_axis(*axis_, in.shape.rank) : -1;
    const int64_t outer = axis < 0 ? 1 : in.shape.count(0, axis);
    const int64_t extent = axis < 0 ? in.count() : in.shape[axis];
    const int64_t used = std::min(extent, condition.count());  // infer() checked the entries past the extent
    const size_t slice =
        static_cast<size_t>(axis < 0 ? 1 : in.shape.count(axis + 1, in.shape.rank)) * dtype_size(in.dtype);
    std::byte* dst = run.outputs[0].data;
    for (int64_t o = 0; o < outer; ++o) {
      const std::byte* src = in.data + static_cast<size_t>(o * extent) * slice;
      for (int64_t i = 0; i < used; ++i) {
        if (keep[i] == 0 || slice == 0) continue;
        std::memcpy(dst, src + static_cast<size_t>(i) * slice, slice);
        dst += slice;
      }
    }
  }

 private:
  std::optional<int64_t> axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_compress(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  std::optional<int64_t> axis;
  if (node.find("axis") != nullptr) axis = node.get_int("axis", 0);
  return std::make_unique<Compress>(axis);
}

}  // namespace onemodel::ops

// ScatterElements (and Scatter, its name in opsets 9 and 10): output = data, then for every position i of
// `indices` the update at i goes to i with its `axis` coordinate replaced by indices[i]. Positions are
// visited in row-major order, so a repeated target takes the last update, or folds its updates in that order
// under a reduction (scatter_reduction.h).
#include <cstring>
#include <string>

#include "graph/ops/shape/element_walk.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/scatter_reduction.h"

namespace onemodel::ops {
namespace {

class ScatterElements final : public OpKernel {
 public:
  ScatterElements(int64_t axis, Reduction reduction) : axis_(axis), reduction_(reduction) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    check_element_indices(ctx, axis_);
    const DType dtype = ctx.input_dtype(0);
    if (ctx.input_dtype(2) != dtype) ctx.fail("updates and data have different element types");
    if (ctx.input_shape(2) != ctx.input_shape(1)) {
      ctx.fail("updates " + ctx.input_shape(2).str() + " and indices " + ctx.input_shape(1).str() +
               " differ in shape");
    }
    check_scatter_reduction_type(ctx, reduction_, dtype);
    ctx.set_output(0, dtype, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const TensorRef& data = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    if (out.data != data.data && out.bytes() > 0) std::memcpy(out.data, data.data, out.bytes());
    if (run.inputs[1].dtype == DType::I64) {
      scatter(run, run.inputs[1].as<const int64_t>());
    } else {
      scatter(run, run.inputs[1].as<const int32_t>());
    }
  }

 private:
  template <class I>
  void scatter(const OpRun& run, const I* indices) const {
    const TensorRef& updates = run.inputs[2];
    const TensorRef& out = run.outputs[0];
    if (updates.count() == 0) return;
    const int rank = out.shape.rank;
    const int axis = normalize_axis(axis_, rank);
    const size_t width = dtype_size(out.dtype);
    OffsetWalker walk = element_walk(out.shape, updates.shape, axis);
    const int64_t axis_stride = out.shape.count(axis + 1, rank);
    const int64_t extent = out.shape[axis];
    do {
      const int64_t at = checked_index(run, indices[walk.b()], extent);
      scatter_slice(reduction_, out.dtype,
                    out.data + static_cast<size_t>(walk.a() + at * axis_stride) * width,
                    updates.data + static_cast<size_t>(walk.b()) * width, 1, width);
    } while (walk.next());
  }

  int64_t axis_;
  Reduction reduction_;
};

}  // namespace

std::unique_ptr<OpKernel> make_scatter_elements(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  return std::make_unique<ScatterElements>(node.get_int("axis", 0), scatter_reduction(node));
}

}  // namespace onemodel::ops

// ScatterElements (and Scatter, its name in opsets 9 and 10): output = data, then for every position i of
// `indices` the update at i goes to i with its `axis` coordinate replaced by indices[i]. Positions are
// visited in row-major order, so a repeated target takes the last update, or folds its updates in that order
// under a reduction (scatter_reduction.h).
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/offset_walker.h"
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
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const DType dtype = ctx.input_dtype(0);
    if (ctx.input_dtype(1) != DType::I64 && ctx.input_dtype(1) != DType::I32)
      ctx.fail("indices must be int64 or int32");
    if (ctx.input_dtype(2) != dtype) ctx.fail("updates and data have different element types");
    if (ctx.input_shape(2) != indices)
      ctx.fail("updates " + ctx.input_shape(2).str() + " and indices " + indices.str() + " differ in shape");
    if (indices.rank != data.rank) ctx.fail("indices and data must have the same rank");
    const int axis = normalize_axis(axis_, data.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(data.rank));
    for (int a = 0; a < data.rank; ++a) {
      if (a != axis && indices[a] > data[a])
        ctx.fail("indices " + indices.str() + " exceed data " + data.str());
    }
    check_scatter_reduction_type(ctx, reduction_, dtype);
    ctx.set_output(0, dtype, data);
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
    // a: offset in the output without the axis coordinate; b: offset in indices and updates.
    int64_t out_stride = 1, update_stride = 1, axis_stride = 1;
    int64_t strides[kMaxRank][2];
    for (int a = rank - 1; a >= 0; --a) {
      strides[a][0] = a == axis ? 0 : out_stride;
      strides[a][1] = update_stride;
      if (a == axis) axis_stride = out_stride;
      out_stride *= out.shape[a];
      update_stride *= updates.shape[a];
    }
    OffsetWalker walk;
    for (int a = 0; a < rank; ++a) walk.add_axis(updates.shape[a], strides[a][0], strides[a][1]);
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

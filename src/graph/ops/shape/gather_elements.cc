// GatherElements: out[i] = data[i with its `axis` coordinate replaced by indices[i]]; the output has the
// indices' shape, whose extents may be smaller than the data's off the axis.
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/offset_walker.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class GatherElements final : public OpKernel {
 public:
  explicit GatherElements(int64_t axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    if (ctx.input_dtype(1) != DType::I64 && ctx.input_dtype(1) != DType::I32)
      ctx.fail("indices must be int64 or int32");
    if (indices.rank != data.rank) ctx.fail("indices and data must have the same rank");
    const int axis = normalize_axis(axis_, data.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(data.rank));
    for (int a = 0; a < data.rank; ++a) {
      if (a != axis && indices[a] > data[a])
        ctx.fail("indices " + indices.str() + " exceed data " + data.str());
    }
    ctx.set_output(0, ctx.input_dtype(0), indices);
  }

  void run(const OpRun& run) const override {
    if (run.inputs[1].dtype == DType::I64) {
      gather(run, run.inputs[1].as<const int64_t>());
    } else {
      gather(run, run.inputs[1].as<const int32_t>());
    }
  }

 private:
  template <class I>
  void gather(const OpRun& run, const I* indices) const {
    const TensorRef& data = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    if (out.count() == 0) return;
    const int rank = data.shape.rank;
    const int axis = normalize_axis(axis_, rank);
    const size_t width = dtype_size(data.dtype);
    // a: offset in data without the axis coordinate; b: offset in the output (and indices).
    OffsetWalker walk;
    int64_t data_stride = 1, out_stride = 1, axis_stride = 1;
    int64_t strides[kMaxRank][2];
    for (int a = rank - 1; a >= 0; --a) {
      strides[a][0] = a == axis ? 0 : data_stride;
      strides[a][1] = out_stride;
      if (a == axis) axis_stride = data_stride;
      data_stride *= data.shape[a];
      out_stride *= out.shape[a];
    }
    for (int a = 0; a < rank; ++a) walk.add_axis(out.shape[a], strides[a][0], strides[a][1]);
    const int64_t extent = data.shape[axis];
    do {
      const int64_t at = checked_index(run, indices[walk.b()], extent);
      std::memcpy(out.data + static_cast<size_t>(walk.b()) * width,
                  data.data + static_cast<size_t>(walk.a() + at * axis_stride) * width, width);
    } while (walk.next());
  }

  int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gather_elements(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<GatherElements>(node.get_int("axis", 0));
}

}  // namespace onemodel::ops

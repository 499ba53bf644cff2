// GatherElements: out[i] = data[i with its `axis` coordinate replaced by indices[i]]; the output has the
// indices' shape, whose extents may be smaller than the data's off the axis.
#include <cstring>

#include "graph/ops/shape/element_walk.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class GatherElements final : public OpKernel {
 public:
  explicit GatherElements(int64_t axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    check_element_indices(ctx, axis_);
    ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(1));
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
    OffsetWalker walk = element_walk(data.shape, out.shape, axis);
    const int64_t axis_stride = data.shape.count(axis + 1, rank);
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

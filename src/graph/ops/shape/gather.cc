// Gather: rows of `data` along `axis` picked by int32 or int64 indices (negative ones count from the end),
// for any element type. An index outside the axis is a run-time InvalidInput error naming the node.
#include <cstring>
#include <string>
#include <vector>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Gather final : public OpKernel {
 public:
  explicit Gather(int64_t axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    if (ctx.input_dtype(1) != DType::I64 && ctx.input_dtype(1) != DType::I32) {
      ctx.fail("indices must be int64 or int32, not " + std::string(dtype_name(ctx.input_dtype(1))));
    }
    const int axis = normalize_axis(axis_, data.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(data.rank));
    std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.begin() + indices.rank);
    dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.begin() + data.rank);
    check_dims(ctx, dims, dtype_size(ctx.input_dtype(0)), "Gather output");
    ctx.set_output(0, ctx.input_dtype(0), Shape::of(dims));
  }

  void run(const OpRun& run) const override {
    const TensorRef& indices = run.inputs[1];
    if (indices.dtype == DType::I64) {
      gather(run, indices.as<const int64_t>());
    } else {
      gather(run, indices.as<const int32_t>());
    }
  }

 private:
  template <class I>
  void gather(const OpRun& run, const I* indices) const {
    const TensorRef& data = run.inputs[0];
    const int axis = normalize_axis(axis_, data.shape.rank);
    const int64_t outer = data.shape.count(0, axis);
    const int64_t extent = data.shape[axis];
    const size_t row_bytes =
        static_cast<size_t>(data.shape.count(axis + 1, data.shape.rank)) * dtype_size(data.dtype);
    const int64_t picks = run.inputs[1].count();
    // Check every index before copying, so a bad index is reported even when nothing would be copied.
    for (int64_t k = 0; k < picks; ++k) checked_index(run, indices[k], extent);
    if (row_bytes == 0) return;
    const std::byte* src = data.data;
    std::byte* dst = run.outputs[0].data;
    for (int64_t o = 0; o < outer; ++o) {
      const std::byte* block = src + static_cast<size_t>(o * extent) * row_bytes;
      for (int64_t k = 0; k < picks; ++k) {
        const int64_t index = indices[k] < 0 ? indices[k] + extent : indices[k];
        std::memcpy(dst, block + static_cast<size_t>(index) * row_bytes, row_bytes);
        dst += row_bytes;
      }
    }
  }

  int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gather(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<Gather>(node.get_int("axis", 0));
}

}  // namespace onemodel::ops

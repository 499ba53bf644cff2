// OneHot: indices of any numeric type expanded along a new axis of extent `depth` into off/on values. An
// index outside [-depth, depth), or NaN, gives an all-off line; rank-0 indices are served.
#include <cmath>
#include <cstring>
#include <string>

#include "graph/ops/elementwise/cast.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

double scalar_as_double(const TensorRef& t) {
  double value = 0;
  cast_elements(t.dtype, t.data, DType::F64, reinterpret_cast<std::byte*>(&value), 1, false);
  return value;
}

bool is_numeric(DType t) {
  return t != DType::Bool;
}

class OneHot final : public OpKernel {
 public:
  explicit OneHot(int64_t axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& indices = ctx.input_shape(0);
    if (!is_numeric(ctx.input_dtype(0)) || !is_numeric(ctx.input_dtype(1)))
      ctx.fail("indices and depth must be numeric");
    if (ctx.input_shape(1).count() != 1 || ctx.input_shape(1).rank > 1) ctx.fail("depth must be one value");
    if (ctx.input_shape(2).rank != 1 || ctx.input_shape(2).count() != 2)
      ctx.fail("values must hold [off, on]");
    if (indices.rank + 1 > kMaxRank) ctx.fail("the output rank would exceed 8");
    const int axis = normalize_axis(axis_, indices.rank + 1);
    if (axis < 0) ctx.fail("axis " + std::to_string(axis_) + " is outside the output rank");
    const TensorRef* depth_value = ctx.input_value(1);
    if (depth_value == nullptr) {
      ctx.require_run_time_values();
      return;
    }
    const double depth = scalar_as_double(*depth_value);
    if (!(depth >= 1 && depth <= static_cast<double>(kMaxElements))) ctx.fail("depth must be at least 1");
    std::vector<int64_t> dims = indices.vec();
    dims.insert(dims.begin() + axis, static_cast<int64_t>(depth));
    check_dims(ctx, dims, dtype_size(ctx.input_dtype(2)), "OneHot output");
    ctx.set_output(0, ctx.input_dtype(2), Shape::of(dims));
  }

  void run(const OpRun& run) const override {
    const TensorRef& indices = run.inputs[0];
    const TensorRef& values = run.inputs[2];
    const TensorRef& out = run.outputs[0];
    const int axis = normalize_axis(axis_, out.shape.rank);
    const int64_t depth = out.shape[axis];
    const int64_t count = indices.count();
    const size_t width = dtype_size(out.dtype);
    const std::byte* off = values.data;
    const std::byte* on = values.data + width;
    for (int64_t i = 0; i < out.count(); ++i)
      std::memcpy(out.data + static_cast<size_t>(i) * width, off, width);
    double* index = run.scratch->allocate_array<double>(static_cast<size_t>(count) + 1);
    cast_elements(indices.dtype, indices.data, DType::F64, reinterpret_cast<std::byte*>(index), count, false);
    const int64_t inner = indices.shape.count(axis, indices.shape.rank);
    for (int64_t i = 0; i < count; ++i) {
      const double v = index[i];
      if (!(v >= static_cast<double>(-depth) && v < static_cast<double>(depth))) continue;  // also NaN
      int64_t d = static_cast<int64_t>(v);
      if (d < 0) d += depth;
      const int64_t o = i / inner, in = i % inner;
      std::memcpy(out.data + static_cast<size_t>((o * depth + d) * inner + in) * width, on, width);
    }
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_one_hot(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  return std::make_unique<OneHot>(node.get_int("axis", -1));
}

}  // namespace onemodel::ops

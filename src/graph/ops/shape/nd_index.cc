// GatherND and ScatterND: the last axis of `indices` holds tuples of data coordinates, each naming a slice
// of data (the axes after the tuple's). GatherND copies the slices out; ScatterND writes updates into a copy
// of data in index order, replacing or folding with a reduction.
#include <algorithm>
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/scatter_reduction.h"

namespace onemodel::ops {
namespace {

void check_index_type(const InferContext& ctx) {
  if (ctx.input_dtype(1) != DType::I64 && ctx.input_dtype(1) != DType::I32)
    ctx.fail("indices must be int64 or int32");
  if (ctx.input_shape(1).rank < 1) ctx.fail("indices must have rank 1 or more");
}

// Element offset in data (from axis `first` on) of the slice named by the k coordinates at `tuple`; each
// coordinate is checked against its extent.
template <class I>
int64_t tuple_offset(const OpRun& run, const I* tuple, int64_t k, const Shape& data, int first) {
  int64_t offset = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int axis = first + static_cast<int>(j);
    offset = offset * data[axis] + checked_index(run, tuple[j], data[axis]);
  }
  return offset * data.count(first + static_cast<int>(k), data.rank);
}

// Calls f with the indices as int64_t* or int32_t*.
template <class F>
void with_indices(const TensorRef& indices, F&& f) {
  if (indices.dtype == DType::I64)
    f(indices.as<const int64_t>());
  else
    f(indices.as<const int32_t>());
}

class GatherND final : public OpKernel {
 public:
  explicit GatherND(int64_t batch_dims) : batch_dims_(batch_dims) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    check_index_type(ctx);
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const int64_t b = batch_dims_;
    if (b < 0 || b >= std::min(data.rank, indices.rank)) ctx.fail("batch_dims is out of range");
    const int64_t k = indices[indices.rank - 1];
    if (k < 1 || k > data.rank - b)
      ctx.fail("index tuples of length " + std::to_string(k) + " do not fit data " + data.str());
    for (int a = 0; a < b; ++a) {
      if (data[a] != indices[a]) ctx.fail("batch extents of data and indices differ");
    }
    std::vector<int64_t> dims(indices.dims.begin(), indices.dims.begin() + indices.rank - 1);
    dims.insert(dims.end(), data.dims.begin() + b + k, data.dims.begin() + data.rank);
    check_dims(ctx, dims, dtype_size(ctx.input_dtype(0)), "GatherND output");
    ctx.set_output(0, ctx.input_dtype(0), Shape::of(dims));
  }

  void run(const OpRun& run) const override {
    const TensorRef& data = run.inputs[0];
    const TensorRef& indices = run.inputs[1];
    const int b = static_cast<int>(batch_dims_);
    const int64_t k = indices.shape[indices.shape.rank - 1];
    const int64_t batches = data.shape.count(0, b);
    const int64_t tuples = indices.shape.count(b, indices.shape.rank - 1);
    const size_t width = dtype_size(data.dtype);
    const size_t slice_bytes =
        static_cast<size_t>(data.shape.count(b + static_cast<int>(k), data.shape.rank)) * width;
    const int64_t batch_elements = data.shape.count(b, data.shape.rank);
    std::byte* dst = run.outputs[0].data;
    with_indices(indices, [&](auto* index) {
      for (int64_t n = 0; n < batches; ++n) {
        for (int64_t t = 0; t < tuples; ++t, index += k) {
          const int64_t offset = n * batch_elements + tuple_offset(run, index, k, data.shape, b);
          if (slice_bytes > 0) std::memcpy(dst, data.data + static_cast<size_t>(offset) * width, slice_bytes);
          dst += slice_bytes;
        }
      }
    });
  }

 private:
  int64_t batch_dims_;
};

class ScatterND final : public OpKernel {
 public:
  explicit ScatterND(Reduction reduction) : reduction_(reduction) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    check_index_type(ctx);
    const Shape& data = ctx.input_shape(0);
    const Shape& indices = ctx.input_shape(1);
    const Shape& updates = ctx.input_shape(2);
    const DType dtype = ctx.input_dtype(0);
    if (ctx.input_dtype(2) != dtype) ctx.fail("updates and data have different element types");
    check_scatter_reduction_type(ctx, reduction_, dtype);
    const int64_t k = indices[indices.rank - 1];
    if (k < 1 || k > data.rank)
      ctx.fail("index tuples of length " + std::to_string(k) + " do not fit data " + data.str());
    std::vector<int64_t> want(indices.dims.begin(), indices.dims.begin() + indices.rank - 1);
    want.insert(want.end(), data.dims.begin() + k, data.dims.begin() + data.rank);
    if (updates.vec() != want)
      ctx.fail("updates have shape " + updates.str() + ", expected " + Shape::of(want).str());
    ctx.set_output(0, dtype, data);
  }

  void run(const OpRun& run) const override {
    const TensorRef& data = run.inputs[0];
    const TensorRef& indices = run.inputs[1];
    const TensorRef& updates = run.inputs[2];
    const TensorRef& out = run.outputs[0];
    if (out.data != data.data && out.bytes() > 0) std::memcpy(out.data, data.data, out.bytes());
    const int64_t k = indices.shape[indices.shape.rank - 1];
    const int64_t tuples = indices.shape.count(0, indices.shape.rank - 1);
    const int64_t slice = data.shape.count(static_cast<int>(k), data.shape.rank);
    const size_t width = dtype_size(data.dtype);
    with_indices(indices, [&](auto* index) {
      for (int64_t t = 0; t < tuples; ++t, index += k) {
        const int64_t offset = tuple_offset(run, index, k, data.shape, 0);
        std::byte* dst = out.data + static_cast<size_t>(offset) * width;
        const std::byte* src = updates.data + static_cast<size_t>(t * slice) * width;
        scatter_slice(reduction_, data.dtype, dst, src, slice, width);
      }
    });
  }

 private:
  Reduction reduction_;
};

}  // namespace

std::unique_ptr<OpKernel> make_gather_nd(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<GatherND>(node.opset() >= 12 ? node.get_int("batch_dims", 0) : 0);
}

std::unique_ptr<OpKernel> make_scatter_nd(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  return std::make_unique<ScatterND>(scatter_reduction(node));
}

}  // namespace onemodel::ops

// Concat: inputs of one element type joined along `axis`; inputs with no elements are allowed.
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Concat final : public OpKernel {
 public:
  explicit Concat(int64_t axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const size_t n = ctx.num_inputs();
    const Shape& first = ctx.input_shape(0);
    const DType dtype = ctx.input_dtype(0);
    const int axis = normalize_axis(axis_, first.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(first.rank));
    Shape out = first;
    out[axis] = 0;
    for (size_t i = 0; i < n; ++i) {
      const Shape& s = ctx.input_shape(i);
      if (ctx.input_dtype(i) != dtype) ctx.fail("inputs have different element types");
      bool same = s.rank == first.rank;
      for (int a = 0; same && a < s.rank; ++a) same = a == axis || s[a] == first[a];
      if (!same)
        ctx.fail("input " + std::to_string(i) + " has shape " + s.str() + ", incompatible with " +
                 first.str());
      out[axis] += s[axis];  // extents are below 2^31, so the sum fits in int64
    }
    check_dims(ctx, out.span(), dtype_size(dtype), "Concat output");
    ctx.set_output(0, dtype, out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& y = run.outputs[0];
    const int axis = normalize_axis(axis_, y.shape.rank);
    const int64_t outer = y.shape.count(0, axis);
    const size_t inner_bytes =
        static_cast<size_t>(y.shape.count(axis + 1, y.shape.rank)) * dtype_size(y.dtype);
    std::byte* dst = y.data;
    for (int64_t o = 0; o < outer; ++o) {
      for (const TensorRef& x : run.inputs) {
        const size_t block = static_cast<size_t>(x.shape[axis]) * inner_bytes;
        if (block == 0) continue;
        std::memcpy(dst, x.data + static_cast<size_t>(o) * block, block);
        dst += block;
      }
    }
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_concat(const NodeInfo& node) {
  if (node.num_inputs() == 0) node.fail("needs at least one input");
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (!node.has_input(i)) node.fail("input " + std::to_string(i) + " is missing");
  }
  if (node.find("axis") == nullptr) node.fail("needs the axis attribute");
  return std::make_unique<Concat>(node.get_int("axis", 0));
}

}  // namespace onemodel::ops

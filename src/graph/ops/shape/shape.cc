// Shape and Size: the input's extents [start, end) as an int64 vector, and its element count as an int64
// scalar; both constants of the plan.
#include <algorithm>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class ShapeOp final : public OpKernel {
 public:
  ShapeOp(int64_t start, int64_t end) : start_(start), end_(end) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    const int64_t begin = clamp_to_rank(start_, in.rank);
    const int64_t end = std::max(begin, clamp_to_rank(end_, in.rank));
    ConstTensor value = ConstTensor::allocate(DType::I64, Shape{end - begin});
    std::copy(in.dims.begin() + begin, in.dims.begin() + end, value.ref.as<int64_t>());
    ctx.set_constant_output(0, std::move(value));
  }

  void run(const OpRun&) const override {}  // never called: the output is a plan constant

 private:
  // Negative positions count from the end; both ends clamp to [0, rank].
  static int64_t clamp_to_rank(int64_t position, int rank) {
    if (position < 0) position += rank;
    return std::clamp<int64_t>(position, 0, rank);
  }

  int64_t start_, end_;
};

class Size final : public OpKernel {
 public:
  Size() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    ConstTensor value = ConstTensor::allocate(DType::I64, Shape{});
    *value.ref.as<int64_t>() = ctx.input_shape(0).count();
    ctx.set_constant_output(0, std::move(value));
  }

  void run(const OpRun&) const override {}  // never called: the output is a plan constant
};

}  // namespace

std::unique_ptr<OpKernel> make_size(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<Size>();
}

std::unique_ptr<OpKernel> make_shape(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  // start/end exist from opset 15; the defaults select every extent.
  return std::make_unique<ShapeOp>(node.get_int("start", 0), node.get_int("end", kMaxRank));
}

}  // namespace onemodel::ops

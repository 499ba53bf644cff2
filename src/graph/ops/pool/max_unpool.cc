// MaxUnpool: scatters X into a zero tensor at the positions MaxPool's Indices output recorded. An index is a
// flat position in the shape the pooling implies, (in - 1) * stride + kernel - pads per spatial axis; with
// `output_shape` it is re-based into that shape coordinate by coordinate (ops-coverage.md "Settled
// semantics"). An index outside either shape is an input error. Elements are only moved, so it is exact;
// repeated indices keep the last element in X's order.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/ops/pool/factories.h"
#include "graph/ops/run_fail.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class MaxUnpool final : public OpKernel {
 public:
  MaxUnpool(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads)
      : kernel_(std::move(kernel)), strides_(std::move(strides)), pads_(std::move(pads)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    const size_t spatial = kernel_.size();
    if (x.rank != static_cast<int>(spatial) + 2)
      ctx.fail("X " + x.str() + " must have batch, channel and " + std::to_string(spatial) + " spatial axes");
    if (ctx.input_shape(1) != x)
      ctx.fail("I " + ctx.input_shape(1).str() + " must have X's shape " + x.str());
    if (ctx.input_dtype(1) != DType::I64) ctx.fail("I must be int64");
    const std::optional<std::vector<int64_t>> requested = int_list_input(ctx, 2, "output_shape");
    if (!requested) return;
    const Shape implied = implied_shape(ctx, x);
    Shape out = implied;
    if (!requested->empty()) {
      check_dims(ctx, *requested, dtype_size(ctx.input_dtype(0)), "output_shape");
      out = Shape::of(*requested);
      if (out.rank != x.rank || out[0] != x[0] || out[1] != x[1])
        ctx.fail("output_shape " + out.str() + " must keep X's rank, batch and channels " + x.str());
    }
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    const int64_t* indices = run.inputs[1].as<const int64_t>();
    const Shape implied = implied_shape(x.shape);
    const size_t width = dtype_size(x.dtype);
    std::fill(out.data, out.data + out.bytes(), std::byte{0});
    const int64_t limit = implied.count(), n = x.count();
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = indices[i];
      if (rest < 0 || rest >= limit)
        run_fail(run, "index " + std::to_string(rest) + " is outside the unpooled shape " + implied.str());
      // Re-base the coordinates from the implied shape into the output shape.
      int64_t at = 0, stride = 1;
      for (int a = implied.rank - 1; a >= 0; --a) {
        const int64_t coordinate = rest % implied[a];
        rest /= implied[a];
        if (coordinate >= out.shape[a])
          run_fail(run,
                   "index " + std::to_string(indices[i]) + " lies outside output_shape " + out.shape.str());
        at += coordinate * stride;
        stride *= out.shape[a];
      }
      std::copy(x.data + static_cast<size_t>(i) * width, x.data + static_cast<size_t>(i + 1) * width,
                out.data + static_cast<size_t>(at) * width);
    }
  }

 private:
  // [N, C, (in - 1) * stride + kernel - pad_begin - pad_end ...]; extents below 0 count as 0.
  Shape implied_shape(const Shape& x) const {
    Shape s = x;
    const size_t spatial = kernel_.size();
    for (size_t a = 0; a < spatial; ++a) {
      const int64_t e =
          (x[static_cast<int>(a) + 2] - 1) * strides_[a] + kernel_[a] - pads_[a] - pads_[a + spatial];
      s[static_cast<int>(a) + 2] = std::max<int64_t>(e, 0);
    }
    return s;
  }
  Shape implied_shape(const InferContext& ctx, const Shape& x) const {
    const Shape s = implied_shape(x);
    if (const std::string p = shape_problem(s.span(), 8); !p.empty()) ctx.fail("unpooled shape " + p);
    return s;
  }

  std::vector<int64_t> kernel_, strides_, pads_;
};

}  // namespace

std::unique_ptr<OpKernel> make_max_unpool(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  const std::vector<int64_t> kernel = node.get_ints("kernel_shape");
  const size_t n = kernel.size();
  if (n == 0 || n > static_cast<size_t>(kMaxRank - 2)) node.fail("kernel_shape needs 1 to 6 values");
  const std::vector<int64_t> strides = node.get_ints("strides", std::vector<int64_t>(n, 1));
  const std::vector<int64_t> pads = node.get_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (strides.size() != n) node.fail("strides must have one value per spatial axis");
  if (pads.size() != 2 * n) node.fail("pads must have two values per spatial axis");
  // Bounds keep the implied extents within int64 before shape_problem() judges them.
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] < 1 || kernel[i] > kMaxElements) node.fail("kernel_shape values must be positive");
    if (strides[i] < 1 || strides[i] > kMaxElements) node.fail("strides must be positive");
  }
  for (int64_t p : pads) {
    if (p < 0 || p > kMaxElements) node.fail("pads must not be negative");
  }
  return std::make_unique<MaxUnpool>(kernel, strides, pads);
}

}  // namespace onemodel::ops

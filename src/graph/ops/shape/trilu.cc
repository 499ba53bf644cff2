// Trilu: the upper (column - row >= k) or lower (column - row <= k) triangle of every matrix in the last two
// axes; other elements become zero of the element type.
#include <algorithm>
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Trilu final : public OpKernel {
 public:
  explicit Trilu(bool upper) : upper_(upper) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_shape(0).rank < 2) ctx.fail("input must have rank 2 or more");
    if (ctx.has_input(1) && (ctx.input_dtype(1) != DType::I64 || ctx.input_shape(1).count() != 1)) {
      ctx.fail("k must be one int64");
    }
    ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const TensorRef& y = run.outputs[0];
    const int rank = x.shape.rank;
    const int64_t rows = x.shape[rank - 2], cols = x.shape[rank - 1];
    // Beyond ±2^32 every k selects the same columns; clamping keeps r + k from overflowing.
    const int64_t k = std::clamp<int64_t>(run.has_input(1) ? *run.inputs[1].as<const int64_t>() : 0,
                                          -(int64_t{1} << 32), int64_t{1} << 32);
    const size_t width = dtype_size(x.dtype);
    const int64_t matrices = x.shape.count(0, rank - 2);
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t r = 0; r < rows; ++r) {
        const size_t row = static_cast<size_t>((m * rows + r) * cols) * width;
        // Kept columns: [r + k, cols) for the upper triangle, [0, r + k] for the lower; clamped to the row.
        const int64_t first = upper_ ? std::clamp<int64_t>(r + k, 0, cols) : 0;
        const int64_t last = upper_ ? cols : std::clamp<int64_t>(r + k + 1, 0, cols);
        std::byte* out = y.data + row;
        const std::byte* in = x.data + row;
        if (first > 0) std::memset(out, 0, static_cast<size_t>(first) * width);
        if (last > first && out != in) {
          std::memcpy(out + first * width, in + first * width, static_cast<size_t>(last - first) * width);
        }
        if (last < cols) std::memset(out + last * width, 0, static_cast<size_t>(cols - last) * width);
      }
    }
  }

 private:
  bool upper_;
};

}  // namespace

std::unique_ptr<OpKernel> make_trilu(const NodeInfo& node) {
  require_inputs(node, 1, 2);
  const int64_t upper = node.get_int("upper", 1);
  if (upper != 0 && upper != 1) node.fail("upper must be 0 or 1");
  return std::make_unique<Trilu>(upper == 1);
}

}  // namespace onemodel::ops

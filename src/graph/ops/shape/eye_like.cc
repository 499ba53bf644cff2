// EyeLike: a 2-D tensor of the input's shape, zero except ones on the diagonal shifted by `k` (k > 0 above
// the main diagonal, k < 0 below). The element type is the `dtype` attribute, else the input's; the input's
// values are never read. Exact by nature.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "graph/ops/dtype_attribute.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class EyeLike final : public OpKernel {
 public:
  EyeLike(std::optional<DType> dtype, int64_t k) : dtype_(dtype), k_(k) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& shape = ctx.input_shape(0);
    if (shape.rank != 2) ctx.fail("input must be 2-D, got rank " + std::to_string(shape.rank));
    ctx.set_output(0, dtype_.value_or(ctx.input_dtype(0)), shape);
  }

  void run(const OpRun& run) const override {
    const TensorRef& out = run.outputs[0];
    if (out.bytes() == 0) return;
    std::memset(out.data, 0, out.bytes());
    const int64_t rows = out.shape.dims[0], cols = out.shape.dims[1];
    if (k_ <= -rows || k_ >= cols)
      return;  // the diagonal misses the matrix (tested first: no overflow below)
    // Row r holds its one at column r + k, for the rows where that column exists.
    const int64_t first = k_ < 0 ? -k_ : 0;
    const int64_t last = std::min(rows, cols - k_);
    visit_dtype(out.dtype, [&](auto e) {
      using E = decltype(e);
      auto* y = out.as<typename E::Stored>();
      const auto one = E::store(typename E::Value(1));
      for (int64_t r = first; r < last; ++r) y[r * cols + r + k_] = one;
    });
  }

 private:
  std::optional<DType> dtype_;
  int64_t k_;
};

}  // namespace

std::unique_ptr<OpKernel> make_eye_like(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<EyeLike>(dtype_attribute(node, "dtype"), node.get_int("k", 0));
}

}  // namespace onemodel::ops

// Softmax (float32) on the session's row kernel (kernels-attention.md, Softmax.Rows). Up to opset 12 the
// input is viewed as a matrix split at `axis` (default 1) and each row is normalised; from opset 13 the
// normalised axis is `axis` alone (default -1). A non-last axis is moved to the end in scratch, normalised
// and moved back.
#include <algorithm>
#include <string>

#include "graph/ops/norm/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/transpose.h"

namespace onemodel::ops {
namespace {

constexpr int64_t kChunkElements = 16384;  // rows per chunk: max(1, this / row length)

// The input as [outer, n, inner]: softmax runs over n for every (outer, inner) pair.
struct Layout {
  int64_t outer, n, inner;
};

class Softmax final : public OpKernel {
 public:
  Softmax(bool coerce_2d, int64_t axis) : coerce_2d_(coerce_2d), axis_(axis) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) {
      ctx.node().unsupported("Softmax: element type " + std::string(dtype_name(ctx.input_dtype(0))) +
                             " is not supported");
    }
    const Shape& in = ctx.input_shape(0);
    const int limit = coerce_2d_ ? in.rank + 1 : in.rank;  // the 2-D split may sit after the last axis
    if (axis_ < -in.rank || axis_ >= limit) {
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(in.rank));
    }
    ctx.set_output(0, DType::F32, in);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const float* src = x.as<const float>();
    float* dst = run.outputs[0].as<float>();
    const Layout l = layout(x.shape);
    if (l.outer * l.n * l.inner == 0) return;
    if (l.inner == 1) {
      rows(run, src, dst, l.outer, l.n);
      return;
    }
    // Move the axis last ([outer, n, inner] -> [outer, inner, n]), normalise the rows, move it back.
    float* scratch = run.scratch->allocate_array<float>(static_cast<size_t>(l.outer * l.n * l.inner));
    const int64_t to_rows[] = {l.outer, l.n, l.inner}, from_rows[] = {l.outer, l.inner, l.n};
    const int swap[] = {0, 2, 1};
    transpose_copy(reinterpret_cast<const std::byte*>(src), reinterpret_cast<std::byte*>(scratch),
                   sizeof(float), to_rows, swap);
    rows(run, scratch, scratch, l.outer * l.inner, l.n);
    transpose_copy(reinterpret_cast<const std::byte*>(scratch), reinterpret_cast<std::byte*>(dst),
                   sizeof(float), from_rows, swap);
  }

 private:
  Layout layout(const Shape& s) const {
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + s.rank : axis_);
    if (coerce_2d_) return {s.count(0, axis), s.count(axis, s.rank), 1};
    return {s.count(0, axis), s[axis], s.count(axis + 1, s.rank)};
  }

  // Softmax of `count` contiguous rows of length n, in fixed chunks of rows.
  static void rows(const OpRun& run, const float* x, float* y, int64_t count, int64_t n) {
    const int64_t per_chunk = std::max<int64_t>(1, kChunkElements / n);
    const int64_t chunks = (count + per_chunk - 1) / per_chunk;
    auto chunk = [&](int64_t c) {
      const int64_t first = c * per_chunk, rows = std::min(per_chunk, count - first);
      run.kernels->softmax_rows(run.exact, x + first * n, y + first * n, static_cast<size_t>(rows),
                                static_cast<size_t>(n));
    };
    parallel_for(run.threads, chunks, chunk, 2.0 * static_cast<double>(count * n));
  }

  bool coerce_2d_;
  int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_softmax(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  const bool coerce_2d = node.opset() < 13;
  return std::make_unique<Softmax>(coerce_2d, node.get_int("axis", coerce_2d ? 1 : -1));
}

}  // namespace onemodel::ops

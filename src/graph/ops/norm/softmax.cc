// Softmax, LogSoftmax and Hardmax (float32): row operators sharing one layout. Up to opset 12 the input is
// viewed as a matrix split at `axis` (default 1) and each row is processed; from opset 13 the row is `axis`
// alone (default -1), and a non-last axis is moved to the end in scratch, processed and moved back. Rows run
// in fixed chunks of max(1, 16384 / row length).
// - Softmax: the session's Softmax.Rows kernel (kernels-attention.md).
// - LogSoftmax: log_softmax_row() (log_softmax_row.h): d = x - max, y = d - log(canonical sum of exp(d));
//   rows holding NaN or +inf, or only -inf, are NaN (as in Softmax). The exponential follows the mode, the
//   log is always the exact one.
// - Hardmax: 1 at the first maximum, 0 elsewhere; a row with a NaN is all zeros.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/norm/factories.h"
#include "graph/ops/norm/log_softmax_row.h"
#include "graph/ops/norm/norm_rows.h"
#include "graph/ops/reduce/canonical_sum.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/transpose.h"

namespace onemodel::ops {
namespace {

// The input as [outer, n, inner]: rows run over n for every (outer, inner) pair.
struct Layout {
  int64_t outer, n, inner;
};

class RowOperator : public OpKernel {
 public:
  RowOperator(const NodeInfo& node, const char* name)
      : name_(name), coerce_2d_(node.opset() < 13), axis_(node.get_int("axis", coerce_2d_ ? 1 : -1)) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) {
      ctx.node().unsupported(std::string(name_) + ": element type " +
                             std::string(dtype_name(ctx.input_dtype(0))) + " is not supported");
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
      chunked_rows(run, src, dst, l.outer, l.n);
      return;
    }
    // Move the axis last ([outer, n, inner] -> [outer, inner, n]), process the rows, move it back.
    float* scratch = run.scratch->allocate_array<float>(static_cast<size_t>(l.outer * l.n * l.inner));
    const int64_t to_rows[] = {l.outer, l.n, l.inner}, from_rows[] = {l.outer, l.inner, l.n};
    const int swap[] = {0, 2, 1};
    transpose_copy(reinterpret_cast<const std::byte*>(src), reinterpret_cast<std::byte*>(scratch),
                   sizeof(float), to_rows, swap);
    chunked_rows(run, scratch, scratch, l.outer * l.inner, l.n);
    transpose_copy(reinterpret_cast<const std::byte*>(scratch), reinterpret_cast<std::byte*>(dst),
                   sizeof(float), from_rows, swap);
  }

 protected:
  // Processes `count` contiguous rows of length n; x and y may be the same memory.
  virtual void rows(const OpRun& run, const float* x, float* y, int64_t count, int64_t n) const = 0;

 private:
  Layout layout(const Shape& s) const {
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + s.rank : axis_);
    if (coerce_2d_) return {s.count(0, axis), s.count(axis, s.rank), 1};
    return {s.count(0, axis), s[axis], s.count(axis + 1, s.rank)};
  }

  void chunked_rows(const OpRun& run, const float* x, float* y, int64_t count, int64_t n) const {
    const int64_t per_chunk = std::max<int64_t>(1, kNormChunkElements / n);
    const int64_t chunks = (count + per_chunk - 1) / per_chunk;
    auto chunk = [&](int64_t c) {
      const int64_t first = c * per_chunk;
      rows(run, x + first * n, y + first * n, std::min(per_chunk, count - first), n);
    };
    parallel_for(run.threads, chunks, chunk, 2.0 * static_cast<double>(count * n));
  }

  const char* name_;
  bool coerce_2d_;
  int64_t axis_;
};

class Softmax final : public RowOperator {
 public:
  explicit Softmax(const NodeInfo& node) : RowOperator(node, "Softmax") {}

 private:
  void rows(const OpRun& run, const float* x, float* y, int64_t count, int64_t n) const override {
    run.kernels->softmax_rows(run.exact, x, y, static_cast<size_t>(count), static_cast<size_t>(n));
  }
};

class LogSoftmax final : public RowOperator {
 public:
  explicit LogSoftmax(const NodeInfo& node) : RowOperator(node, "LogSoftmax") {}

 private:
  void rows(const OpRun& run, const float* x, float* y, int64_t count, int64_t n) const override {
    for (int64_t r = 0; r < count; ++r) log_softmax_row(run, x + r * n, y + r * n, n);
  }
};

class Hardmax final : public RowOperator {
 public:
  explicit Hardmax(const NodeInfo& node) : RowOperator(node, "Hardmax") {}

 private:
  void rows(const OpRun&, const float* x, float* y, int64_t count, int64_t n) const override {
    for (int64_t r = 0; r < count; ++r, x += n, y += n) {
      int64_t best = 0;
      bool nan_row = false;
      for (int64_t j = 0; j < n; ++j) {
        nan_row = nan_row || std::isnan(x[j]);
        best = x[j] > x[best] ? j : best;
      }
      // x and y may alias: the row is read fully before it is written.
      std::fill(y, y + n, 0.0f);
      if (!nan_row) y[best] = 1.0f;
    }
  }
};

template <class Op>
std::unique_ptr<OpKernel> make(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<Op>(node);
}

}  // namespace

void log_softmax_row(const OpRun& run, const float* x, float* y, int64_t n) {
  constexpr int64_t kBlock = 256;  // exponentials evaluated per kernel call
  float max = -std::numeric_limits<float>::infinity();
  bool nan_row = false;
  for (int64_t j = 0; j < n; ++j) {
    nan_row = nan_row || std::isnan(x[j]) || x[j] == std::numeric_limits<float>::infinity();
    max = x[j] > max ? x[j] : max;
  }
  if (nan_row || max == -std::numeric_limits<float>::infinity()) {
    std::fill(y, y + n, canonical_nan<float>());
    return;
  }
  for (int64_t j = 0; j < n; ++j) y[j] = x[j] - max;
  CanonicalSum<float, FloatAdd> sum({});
  float e[kBlock];
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t width = std::min(kBlock, n - j0);
    run.kernels->unary(UnaryFn::Exp, run.exact, y + j0, e, static_cast<size_t>(width));
    sum.add(width, [&](int64_t j) { return e[j]; });
  }
  float log_sum = sum.total();
  run.kernels->unary(UnaryFn::Log, true, &log_sum, &log_sum, 1);
  for (int64_t j = 0; j < n; ++j) y[j] = y[j] - log_sum;
}

std::unique_ptr<OpKernel> make_softmax(const NodeInfo& node) {
  return make<Softmax>(node);
}
std::unique_ptr<OpKernel> make_log_softmax(const NodeInfo& node) {
  return make<LogSoftmax>(node);
}
std::unique_ptr<OpKernel> make_hardmax(const NodeInfo& node) {
  return make<Hardmax>(node);
}

}  // namespace onemodel::ops

// CumSum (ops-norms.md): a sequential running sum along one axis, from the first element or (reverse) the
// last; `exclusive` shifts the sums by one so the first output is 0. The axis is an input read at run time.
// Floats are added in exactly that order and NaN results are canonical. One thread.
#include <string>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/reduce/factories.h"
#include "graph/ops/reduce/reduce_engine.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

template <class T>
void cum_sum(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse) {
  // Walking backwards is walking forwards over the mirrored axis.
  const int64_t first = reverse ? n - 1 : 0, step = (reverse ? -1 : 1) * inner;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t start = (o * n + first) * inner + i;
      T sum = T(0);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = start + j * step;
        const T v = x[at];
        if (exclusive) {
          y[at] = canonicalize(sum);
          sum = wrapping_add(sum, v);
        } else {
          // The first sum is x[0] itself, not 0 + x[0], so a leading -0 stays -0.
          sum = j == 0 ? v : wrapping_add(sum, v);
          y[at] = canonicalize(sum);
        }
      }
    }
  }
}

class CumSum final : public OpKernel {
 public:
  explicit CumSum(const NodeInfo& node)
      : exclusive_(node.get_int("exclusive", 0) != 0), reverse_(node.get_int("reverse", 0) != 0) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    if (t != DType::F32 && t != DType::F64 && t != DType::I32 && t != DType::I64 && t != DType::U32 &&
        t != DType::U64) {
      ctx.node().unsupported("CumSum: element type " + std::string(dtype_name(t)) + " is not supported");
    }
    const DType at = ctx.input_dtype(1);
    if ((at != DType::I32 && at != DType::I64) || ctx.input_shape(1).count() != 1 ||
        ctx.input_shape(1).rank > 1) {
      ctx.fail("the axis input must be one int32 or int64 value");
    }
    const TensorRef* axis = ctx.input_value(1);
    if (axis != nullptr) check_axis(ctx, read_axis(*axis), ctx.input_shape(0).rank);
    ctx.set_output(0, t, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int64_t listed = read_axis(run.inputs[1]);
    const int axis = normalize_axis(listed, x.shape.rank);
    if (axis < 0) {
      throw SessionError(
          SessionError::Kind::InvalidInput,
          "CumSum: axis " + std::to_string(listed) + " is outside the rank " + std::to_string(x.shape.rank),
          run.node != nullptr ? run.node->display_name() : std::string());
    }
    const int64_t outer = x.shape.count(0, axis), n = x.shape[axis],
                  inner = x.shape.count(axis + 1, x.shape.rank);
    std::byte* y = run.outputs[0].data;
    switch (x.dtype) {
      case DType::F32:
        return cum_sum(x.as<const float>(), reinterpret_cast<float*>(y), outer, n, inner, exclusive_,
                       reverse_);
      case DType::F64:
        return cum_sum(x.as<const double>(), reinterpret_cast<double*>(y), outer, n, inner, exclusive_,
                       reverse_);
      case DType::I32:
        return cum_sum(x.as<const int32_t>(), reinterpret_cast<int32_t*>(y), outer, n, inner, exclusive_,
                       reverse_);
      case DType::I64:
        return cum_sum(x.as<const int64_t>(), reinterpret_cast<int64_t*>(y), outer, n, inner, exclusive_,
                       reverse_);
      case DType::U32:
        return cum_sum(x.as<const uint32_t>(), reinterpret_cast<uint32_t*>(y), outer, n, inner, exclusive_,
                       reverse_);
      default:  // U64, the last type infer accepts
        return cum_sum(x.as<const uint64_t>(), reinterpret_cast<uint64_t*>(y), outer, n, inner, exclusive_,
                       reverse_);
    }
  }

 private:
  static int64_t read_axis(const TensorRef& axis) {
    return axis.dtype == DType::I64 ? axis.as<const int64_t>()[0] : axis.as<const int32_t>()[0];
  }

  static void check_axis(const InferContext& ctx, int64_t axis, int rank) {
    if (normalize_axis(axis, rank) < 0) {
      ctx.fail("axis " + std::to_string(axis) + " is outside [-" + std::to_string(rank) + ", " +
               std::to_string(rank) + ")");
    }
  }

  bool exclusive_, reverse_;
};

}  // namespace

std::unique_ptr<OpKernel> make_cum_sum(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<CumSum>(node);
}

}  // namespace onemodel::ops

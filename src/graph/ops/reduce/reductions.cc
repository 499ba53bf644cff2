// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum
// and ReduceLogSumExp: one kernel over reduce_engine.h, the operators differing in their terms, their fold
// and the finishing step (ops-norms.md "Reductions"). Every operator is exact: fast mode runs the same code,
// and the log and exponential are the exact ones in both modes. NaN results are canonical.
#include <cmath>
#include <limits>
#include <string>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/reduce/factories.h"
#include "graph/ops/reduce/reduce_engine.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

enum class Kind { Sum, Mean, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp };

struct KindInfo {
  const char* name;
  int axes_input_opset;  // the opset from which `axes` is the second input
  bool integers;         // serves the integer types
  bool float64;          // serves float64
};

KindInfo info(Kind k) {
  switch (k) {
    case Kind::Sum:
      return {"ReduceSum", 13, true, true};
    case Kind::Mean:
      return {"ReduceMean", 18, true, true};
    case Kind::Max:
      return {"ReduceMax", 18, true, true};
    case Kind::Min:
      return {"ReduceMin", 18, true, true};
    case Kind::Prod:
      return {"ReduceProd", 18, true, true};
    case Kind::L1:
      return {"ReduceL1", 18, true, true};
    case Kind::L2:
      return {"ReduceL2", 18, false, true};
    case Kind::SumSquare:
      return {"ReduceSumSquare", 18, true, true};
    // float64 with the platform's exp and log: fast mode only (ops-coverage.md).
    case Kind::LogSum:
      return {"ReduceLogSum", 18, false, true};
    case Kind::LogSumExp:
      return {"ReduceLogSumExp", 18, false, true};
  }
  return {};
}

template <class T>
T magnitude(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fabs(v);
  } else if constexpr (std::is_signed_v<T>) {
    return v < 0 ? static_cast<T>(wrapping_mul(v, T(-1))) : v;  // the minimum value wraps to itself
  } else {
    return v;
  }
}

// sum / count: float division with the count rounded to T, or integer division truncating toward zero.
template <class T>
T mean_of(T sum, int64_t count) {
  if constexpr (std::is_floating_point_v<T>) {
    return sum / static_cast<T>(count);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(static_cast<int64_t>(sum) / count);
  } else {
    return static_cast<T>(static_cast<uint64_t>(sum) / static_cast<uint64_t>(count));
  }
}

// The exact library log or exp of one float (the kernel table is the only place these are compiled).
float exact_unary(const OpRun& run, UnaryFn fn, float v) {
  float out;
  run.kernels->unary(fn, true, &v, &out, 1);
  return out;
}

// The value of an empty reduction.
template <class T>
T empty_value(Kind k) {
  using L = std::numeric_limits<T>;
  switch (k) {
    case Kind::Max:
      return L::has_infinity ? -L::infinity() : L::lowest();
    case Kind::Min:
      return L::has_infinity ? L::infinity() : L::max();
    case Kind::Prod:
      return T(1);
    case Kind::LogSum:
    case Kind::LogSumExp:
      return -L::infinity();
    default:
      return T(0);
  }
}

template <class T>
void reduce_typed(Kind k, const OpRun& run, const T* x, T* y, const ReduceGeometry& g) {
  if (g.per_output == 0) {
    std::fill(y, y + g.outputs, empty_value<T>(k));
    return;
  }
  const ValueTerm value;
  const SquareTerm square;
  switch (k) {
    case Kind::Sum:
    case Kind::Mean:
      reduce<Fold::Sum16>(x, y, g, run, value);
      break;
    case Kind::Max:
      reduce<Fold::Max>(x, y, g, run, value);
      break;
    case Kind::Min:
      reduce<Fold::Min>(x, y, g, run, value);
      break;
    case Kind::Prod:
      reduce<Fold::Mul>(x, y, g, run, value);
      break;
    case Kind::L1:
      reduce<Fold::Sum16>(x, y, g, run, [](T v, int64_t) { return magnitude(v); });
      break;
    case Kind::L2:
    case Kind::SumSquare:
      reduce<Fold::Sum16>(x, y, g, run, square);
      break;
    case Kind::LogSum:
      reduce<Fold::Sum16>(x, y, g, run, value);
      break;
    case Kind::LogSumExp:
      // m = the maximum (NaN when any element is), then m + log(sequential sum of exp(x - m)).
      if constexpr (std::is_same_v<T, float>) {
        float* m = run.scratch->allocate_array<float>(static_cast<size_t>(g.outputs));
        reduce<Fold::MaxNaN>(x, m, g, run, value);
        reduce<Fold::Add>(x, y, g, run,
                          [&](float v, int64_t o) { return exact_unary(run, UnaryFn::Exp, v - m[o]); });
        for (int64_t o = 0; o < g.outputs; ++o) {
          y[o] = std::isinf(m[o]) ? m[o] : m[o] + exact_unary(run, UnaryFn::Log, y[o]);
        }
      } else if constexpr (std::is_same_v<T, double>) {
        double* m = run.scratch->allocate_array<double>(static_cast<size_t>(g.outputs));
        reduce<Fold::MaxNaN>(x, m, g, run, value);
        reduce<Fold::Add>(x, y, g, run, [&](double v, int64_t o) { return std::exp(v - m[o]); });
        for (int64_t o = 0; o < g.outputs; ++o) y[o] = std::isinf(m[o]) ? m[o] : m[o] + std::log(y[o]);
      }
      break;
  }
  switch (k) {
    case Kind::Mean:
      for (int64_t o = 0; o < g.outputs; ++o) y[o] = mean_of(y[o], g.per_output);
      break;
    case Kind::L2:
      if constexpr (std::is_floating_point_v<T>) {
        for (int64_t o = 0; o < g.outputs; ++o) y[o] = std::sqrt(y[o]);
      }
      break;
    case Kind::LogSum:
      if constexpr (std::is_same_v<T, float>) {
        run.kernels->unary(UnaryFn::Log, true, y, y, static_cast<size_t>(g.outputs));
      } else if constexpr (std::is_same_v<T, double>) {
        for (int64_t o = 0; o < g.outputs; ++o) y[o] = std::log(y[o]);
      }
      break;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    for (int64_t o = 0; o < g.outputs; ++o) y[o] = canonicalize(y[o]);
  }
}

class Reduce final : public OpKernel {
 public:
  Reduce(const NodeInfo& node, Kind kind)
      : kind_(kind),
        axes_from_input_(node.opset() >= info(kind).axes_input_opset),
        keep_dims_(node.get_int("keepdims", 1) != 0),
        noop_with_empty_axes_(axes_from_input_ && node.get_int("noop_with_empty_axes", 0) != 0),
        attribute_axes_(node.get_ints("axes")) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    const KindInfo k = info(kind_);
    const bool integer = t == DType::I8 || t == DType::U8 || t == DType::I32 || t == DType::U32 ||
                         t == DType::I64 || t == DType::U64;
    if (!(t == DType::F32 || (t == DType::F64 && k.float64) || (integer && k.integers))) {
      ctx.node().unsupported(std::string(k.name) + ": element type " + std::string(dtype_name(t)) +
                             " is not supported");
    }
    if (t == DType::F64 && (kind_ == Kind::LogSum || kind_ == Kind::LogSumExp) && ctx.exact()) {
      const std::string op = std::string(k.name) + " (opset " + std::to_string(ctx.node().opset()) + ")";
      throw SessionError(
          SessionError::Kind::ExactModeUnavailable,
          "Exact mode is not available: float64 ReduceLogSum and ReduceLogSumExp have no exact "
          "kernel (they use the platform's exp and log). Use ExecutionMode::Fast.",
          ctx.node().display_name(), {op});
    }
    std::vector<int64_t> axes = attribute_axes_;
    if (axes_from_input_) {
      auto listed = int_list_input(ctx, 1, "axes input");
      if (!listed) return;
      axes = std::move(*listed);
    }
    const Shape& in = ctx.input_shape(0);
    ctx.set_output(0, t,
                   reduced_shape(in, mask(axes_mask(ctx, axes, in.rank), axes.empty(), in.rank), keep_dims_));
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    uint32_t listed = 0;
    bool empty = true;
    if (!axes_from_input_) {
      for (int64_t axis : attribute_axes_) listed |= 1u << normalize_axis(axis, x.shape.rank);
      empty = attribute_axes_.empty();
    } else if (run.has_input(1)) {
      const TensorRef& axes = run.inputs[1];  // validated by infer with this value
      for (int64_t i = 0; i < axes.count(); ++i) {
        const int64_t axis =
            axes.dtype == DType::I64 ? axes.as<const int64_t>()[i] : axes.as<const int32_t>()[i];
        listed |= 1u << normalize_axis(axis, x.shape.rank);
      }
      empty = axes.count() == 0;
    }
    const ReduceGeometry g = reduce_geometry(x.shape, mask(listed, empty, x.shape.rank));
    std::byte* y = run.outputs[0].data;
    switch (x.dtype) {
      case DType::F32:
        return reduce_typed(kind_, run, x.as<const float>(), reinterpret_cast<float*>(y), g);
      case DType::F64:
        return reduce_typed(kind_, run, x.as<const double>(), reinterpret_cast<double*>(y), g);
      case DType::I8:
        return reduce_typed(kind_, run, x.as<const int8_t>(), reinterpret_cast<int8_t*>(y), g);
      case DType::U8:
        return reduce_typed(kind_, run, x.as<const uint8_t>(), reinterpret_cast<uint8_t*>(y), g);
      case DType::I32:
        return reduce_typed(kind_, run, x.as<const int32_t>(), reinterpret_cast<int32_t*>(y), g);
      case DType::U32:
        return reduce_typed(kind_, run, x.as<const uint32_t>(), reinterpret_cast<uint32_t*>(y), g);
      case DType::I64:
        return reduce_typed(kind_, run, x.as<const int64_t>(), reinterpret_cast<int64_t*>(y), g);
      default:  // U64, the last type infer accepts
        return reduce_typed(kind_, run, x.as<const uint64_t>(), reinterpret_cast<uint64_t*>(y), g);
    }
  }

 private:
  // The reduced axes: those listed, or with no list every axis (none with noop_with_empty_axes).
  uint32_t mask(uint32_t listed, bool empty, int rank) const {
    if (!empty) return listed;
    return noop_with_empty_axes_ ? 0u : (1u << rank) - 1u;
  }

  Kind kind_;
  bool axes_from_input_, keep_dims_, noop_with_empty_axes_;
  std::vector<int64_t> attribute_axes_;
};

template <Kind K>
std::unique_ptr<OpKernel> make(const NodeInfo& node) {
  require_inputs(node, 1, node.opset() >= info(K).axes_input_opset ? 2 : 1);
  return std::make_unique<Reduce>(node, K);
}

}  // namespace

std::unique_ptr<OpKernel> make_reduce_sum(const NodeInfo& node) {
  return make<Kind::Sum>(node);
}
std::unique_ptr<OpKernel> make_reduce_mean(const NodeInfo& node) {
  return make<Kind::Mean>(node);
}
std::unique_ptr<OpKernel> make_reduce_max(const NodeInfo& node) {
  return make<Kind::Max>(node);
}
std::unique_ptr<OpKernel> make_reduce_min(const NodeInfo& node) {
  return make<Kind::Min>(node);
}
std::unique_ptr<OpKernel> make_reduce_prod(const NodeInfo& node) {
  return make<Kind::Prod>(node);
}
std::unique_ptr<OpKernel> make_reduce_l1(const NodeInfo& node) {
  return make<Kind::L1>(node);
}
std::unique_ptr<OpKernel> make_reduce_l2(const NodeInfo& node) {
  return make<Kind::L2>(node);
}
std::unique_ptr<OpKernel> make_reduce_sum_square(const NodeInfo& node) {
  return make<Kind::SumSquare>(node);
}
std::unique_ptr<OpKernel> make_reduce_log_sum(const NodeInfo& node) {
  return make<Kind::LogSum>(node);
}
std::unique_ptr<OpKernel> make_reduce_log_sum_exp(const NodeInfo& node) {
  return make<Kind::LogSumExp>(node);
}

}  // namespace onemodel::ops

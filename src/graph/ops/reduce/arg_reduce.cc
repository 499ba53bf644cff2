// ArgMax and ArgMin (ops-norms.md): a scan of the axis from index 0 where a later element replaces the best
// so far when strictly better, or with select_last_index when better or equal. NaN compares false, so it is
// kept only when it comes first. An axis of extent 0 gives index 0. One thread.
#include <algorithm>
#include <string>

#include "graph/ops/reduce/factories.h"
#include "graph/ops/reduce/reduce_geometry.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

template <bool Max, bool Last, class T>
void arg_reduce(const T* x, int64_t* y, int64_t outer, int64_t n, int64_t inner) {
  auto wins = [](T v, T best) {
    if constexpr (Max) {
      return Last ? v >= best : v > best;
    } else {
      return Last ? v <= best : v < best;
    }
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* line = x + o * n * inner + i;
      int64_t index = 0;
      for (int64_t j = 1; j < n; ++j) {
        if (wins(line[j * inner], line[index * inner])) index = j;
      }
      y[o * inner + i] = index;
    }
  }
}

template <bool Max, class T>
void arg_reduce_typed(const TensorRef& x, int64_t* y, int axis, bool last) {
  const int64_t outer = x.shape.count(0, axis), n = x.shape[axis],
                inner = x.shape.count(axis + 1, x.shape.rank);
  if (n == 0) {
    std::fill(y, y + outer * inner, int64_t{0});
  } else if (last) {
    arg_reduce<Max, true>(x.as<const T>(), y, outer, n, inner);
  } else {
    arg_reduce<Max, false>(x.as<const T>(), y, outer, n, inner);
  }
}

template <bool Max>
class ArgReduce final : public OpKernel {
 public:
  explicit ArgReduce(const NodeInfo& node)
      : axis_(node.get_int("axis", 0)),
        keep_dims_(node.get_int("keepdims", 1) != 0),
        last_(node.opset() >= 12 && node.get_int("select_last_index", 0) != 0) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const DType t = ctx.input_dtype(0);
    switch (t) {
      case DType::F32:
      case DType::F64:
      case DType::I8:
      case DType::I16:
      case DType::I32:
      case DType::I64:
      case DType::U8:
      case DType::U16:
      case DType::U32:
      case DType::U64:
        break;
      default:
        ctx.node().unsupported(std::string(Max ? "ArgMax" : "ArgMin") + ": element type " +
                               std::string(dtype_name(t)) + " is not supported");
    }
    const Shape& in = ctx.input_shape(0);
    const int64_t axes[] = {axis_};
    ctx.set_output(0, DType::I64, reduced_shape(in, axes_mask(ctx, axes, in.rank), keep_dims_));
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int axis = normalize_axis(axis_, x.shape.rank);
    int64_t* y = run.outputs[0].as<int64_t>();
    switch (x.dtype) {
      case DType::F32:
        return arg_reduce_typed<Max, float>(x, y, axis, last_);
      case DType::F64:
        return arg_reduce_typed<Max, double>(x, y, axis, last_);
      case DType::I8:
        return arg_reduce_typed<Max, int8_t>(x, y, axis, last_);
      case DType::I16:
        return arg_reduce_typed<Max, int16_t>(x, y, axis, last_);
      case DType::I32:
        return arg_reduce_typed<Max, int32_t>(x, y, axis, last_);
      case DType::I64:
        return arg_reduce_typed<Max, int64_t>(x, y, axis, last_);
      case DType::U8:
        return arg_reduce_typed<Max, uint8_t>(x, y, axis, last_);
      case DType::U16:
        return arg_reduce_typed<Max, uint16_t>(x, y, axis, last_);
      case DType::U32:
        return arg_reduce_typed<Max, uint32_t>(x, y, axis, last_);
      default:  // U64, the last type infer accepts
        return arg_reduce_typed<Max, uint64_t>(x, y, axis, last_);
    }
  }

 private:
  int64_t axis_;
  bool keep_dims_, last_;
};

}  // namespace

std::unique_ptr<OpKernel> make_arg_max(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<ArgReduce<true>>(node);
}

std::unique_ptr<OpKernel> make_arg_min(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<ArgReduce<false>>(node);
}

}  // namespace onemodel::ops

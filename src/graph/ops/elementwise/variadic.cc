// Max, Min, Sum and Mean over one or more inputs with numpy broadcasting. The output is folded left to right:
// it first holds op(x0, x1) (or x0 alone), then each further input is combined into it in place, so an
// element's result is op(...op(op(x0, x1), x2)..., xn) whatever the shapes. Mean divides the sum by the
// input count at the end. 16-bit floats round to half precision after every step, like a chain of binary
// operators.
//
// Max and Min: NaN in either operand wins (the first one's when both are NaN) and on equality the second
// operand is taken, so Max(-0, +0) is +0 and Max(+0, -0) is -0.
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/unary_kernel.h"

namespace onemodel::ops {
namespace {

template <class E>
inline constexpr bool kFloatNumeric = is_numeric_elem<E>&& E::is_float;

template <bool kMax>
struct ExtremeOp {
  template <class E>
  static constexpr bool serves = is_numeric_elem<E>;
  template <class V>
  static V apply(V a, V b) {
    const bool a_wins = kMax ? a > b : a < b;
    // Bitwise rather than short-circuit operators keep the loop free of branches.
    if constexpr (std::is_floating_point_v<V>)
      return select_value((a != a) | (a_wins & (b == b)), a, b);
    else
      return a_wins ? a : b;
  }
};

struct SumOp {
  template <class E>
  static constexpr bool serves = kFloatNumeric<E>;
  template <class V>
  static V apply(V a, V b) {
    return a + b;
  }
};

template <class Op, bool kMean>
class Variadic final : public OpKernel {
 public:
  Variadic() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const size_t count = ctx.num_inputs();
    for (size_t i = 0; i < count; ++i) {
      if (!ctx.has_input(i)) ctx.fail("input " + std::to_string(i) + " is missing");
    }
    const DType type = common_input_type(ctx, count);
    if (!visit_dtype(type, [](auto e) { return Op::template serves<decltype(e)>; }))
      unsupported_type(ctx, type);
    ctx.set_output(0, type, broadcast_output_shape(ctx, count, type));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (Op::template serves<E>) fold<E>(run);
    });
  }

 private:
  template <class E>
  static void fold(const OpRun& run) {
    using V = typename E::Value;
    const size_t count = run.inputs.size();
    TensorRef& y = run.outputs[0];
    if (count == 1) {  // the output has input 0's shape: a copy (through load/store, so NaN is canonicalised)
      map_elements<E>(run, 0.3, [](V v) { return v; });
    } else {
      run_binary_op<Op, E, E, E>(run, 0.5);
      for (size_t i = 2; i < count; ++i) {
        const TensorRef operands[] = {y, run.inputs[i]};
        OpRun step = run;
        step.inputs = operands;
        run_binary_op<Op, E, E, E>(step, 0.5);
      }
    }
    if constexpr (kMean) {
      const TensorRef operand[] = {y};
      OpRun divide = run;
      divide.inputs = operand;
      const V n = static_cast<V>(count);
      map_elements<E>(divide, 0.5, [n](V v) { return v / n; });
    }
  }
};

template <class Op, bool kMean = false>
std::unique_ptr<OpKernel> make_variadic(const NodeInfo& node) {
  if (node.num_inputs() == 0) node.fail("expects at least one input");
  return std::make_unique<Variadic<Op, kMean>>();
}

}  // namespace

std::unique_ptr<OpKernel> make_max(const NodeInfo& node) {
  return make_variadic<ExtremeOp<true>>(node);
}
std::unique_ptr<OpKernel> make_min(const NodeInfo& node) {
  return make_variadic<ExtremeOp<false>>(node);
}
std::unique_ptr<OpKernel> make_sum(const NodeInfo& node) {
  return make_variadic<SumOp>(node);
}
std::unique_ptr<OpKernel> make_mean(const NodeInfo& node) {
  return make_variadic<SumOp, true>(node);
}

}  // namespace onemodel::ops

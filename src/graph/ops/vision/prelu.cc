// PRelu: y = x < 0 ? x * slope : x. From opset 7 the slope is broadcast to the shape of X in one direction
// only; before, a slope of one element is shared and any other is laid over X from the channel axis (1) on,
// which the legacy adapter restates as the numpy form. Runs on the element-wise broadcast engine. A NaN x is
// not below zero and passes; NaN results are canonical in fast mode too, so both modes give the same bits.
#include <type_traits>

#include "graph/ops/elementwise/binary_kernel.h"
#include "graph/ops/elementwise/legacy_broadcast.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {
namespace {

struct PReluOp {
  template <class E>
  static constexpr bool serves = E::is_float || E::dtype == DType::I32 || E::dtype == DType::I64 ||
                                 E::dtype == DType::U32 || E::dtype == DType::U64;
  template <class V>
  static V apply(V x, V slope) {
    if constexpr (std::is_floating_point_v<V>) {
      return select_value(x < V(0), x * slope, x);
    } else {
      // Integer products wrap modulo 2^n instead of overflowing a signed type.
      return x < V(0) ? static_cast<V>(static_cast<Wrap<V>>(x) * static_cast<Wrap<V>>(slope)) : x;
    }
  }
};

class PRelu final : public OpKernel {
 public:
  PRelu() {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    const DType type = common_input_type(ctx, 2);
    if (!visit_dtype(type, [](auto e) { return PReluOp::serves<decltype(e)>; })) unsupported_type(ctx, type);
    const Shape out = broadcast_output_shape(ctx, 2, type);
    if (out != ctx.input_shape(0)) {
      ctx.fail("slope " + ctx.input_shape(1).str() + " does not broadcast to X " + ctx.input_shape(0).str());
    }
    ctx.set_output(0, type, out);
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (PReluOp::serves<E>)
        run_binary_broadcast(run, binary_blocks<PReluOp, E, E, E, true>(), 0.5);
    });
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_prelu(const NodeInfo& node) {
  require_inputs(node, 2);
  return std::make_unique<PRelu>();
}

std::unique_ptr<OpKernel> make_legacy_prelu(const NodeInfo& node) {
  return wrap_legacy_operand(make_prelu(node),
                             LegacyLayout{true, 1});  // the channel axis, whatever the node says
}

}  // namespace onemodel::ops

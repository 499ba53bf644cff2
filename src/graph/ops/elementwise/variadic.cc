// Max, Min, Sum and Mean over one or more inputs with numpy broadcasting. The output is folded left to right:
// it first holds op(x0, x1) (or x0 alone), then each further input is combined into it in place, so an
// element's result is op(...op(op(x0, x1), x2)..., xn) whatever the shapes. Mean multiplies the sum by the
// reciprocal of the input count, rounded to the computing type (ONNX Runtime's order: Mean(a, b, c) is
// (a + b + c) * 0.33333334f, which differs from a division in the last bit). 16-bit floats fold in single
// precision and round to half precision once, at the end (ops-elementwise.md: half arithmetic rounds once).
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
      return;
    }
    // Half types accumulate in a single-precision scratch tensor; the others in the output itself.
    constexpr bool kWiden = !std::is_same_v<typename E::Stored, V>;
    using EAcc = std::conditional_t<kWiden, F32Elem, E>;
    TensorRef acc = y;
    if constexpr (kWiden) {
      acc.dtype = DType::F32;
      acc.data =
          static_cast<std::byte*>(run.scratch->allocate(static_cast<size_t>(y.count()) * sizeof(float)));
    }
    TensorRef acc_out[] = {acc};
    OpRun first = run;
    first.outputs = acc_out;
    run_binary_op<Op, E, E, EAcc>(first, 0.5);
    for (size_t i = 2; i < count; ++i) {
      const TensorRef operands[] = {acc, run.inputs[i]};
      OpRun step = first;
      step.inputs = operands;
      run_binary_op<Op, EAcc, E, EAcc>(step, 0.5);
    }
    if constexpr (kMean || kWiden) {
      [[maybe_unused]] const V scale = V(1) / static_cast<V>(count);
      const auto* a = acc.as<const typename EAcc::Stored>();
      auto* out = y.as<typename E::Stored>();
      for_each_chunk(run.threads, y.count(), 0.5, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          V v = EAcc::load(a[i]);
          if constexpr (kMean) v = v * scale;
          if (run.exact) v = canonicalize(v);
          out[i] = E::store(v);
        }
      });
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

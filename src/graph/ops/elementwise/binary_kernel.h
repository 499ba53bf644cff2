// Two-input element-wise kernels over the broadcast engine: the block loops of an operation `Op` (a struct
// with `static auto apply(a, b)` on computing values) for input element traits EA, EB and output trait EY,
// and a node kernel for the operators whose inputs share one element type (arithmetic, comparisons, logic,
// Mod, the variadic folds).
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "graph/ops/elementwise/broadcast.h"
#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/f32_block.h"

namespace onemodel::ops {

// Step used when the block's steps are run-time values rather than template arguments.
inline constexpr int kRunTimeStep = -1;

// One block of the broadcast (BinaryBlockFn). With the steps as template arguments the loop is flat and the
// compiler vectorises it. Exact mode rewrites NaN results of float outputs to the canonical NaN.
template <class Op, class EA, class EB, class EY, bool kExact, int kStepA, int kStepB>
void binary_block(const std::byte* a_bytes, int64_t step_a, const std::byte* b_bytes, int64_t step_b,
                  std::byte* y_bytes, int64_t n) {
  const auto* a = reinterpret_cast<const typename EA::Stored*>(a_bytes);
  const auto* b = reinterpret_cast<const typename EB::Stored*>(b_bytes);
  auto* y = reinterpret_cast<typename EY::Stored*>(y_bytes);
  const int64_t sa = kStepA == kRunTimeStep ? step_a : kStepA;
  const int64_t sb = kStepB == kRunTimeStep ? step_b : kStepB;
  for (int64_t i = 0; i < n; ++i) {
    auto v = static_cast<typename EY::Value>(Op::apply(EA::load(a[i * sa]), EB::load(b[i * sb])));
    if constexpr (kExact && EY::is_float) v = canonicalize(v);
    y[i] = EY::store(v);
  }
}

// f32, the type whose speed matters, gets one loop per step pattern; the other types share one loop that
// reads the steps at run time, which keeps the code small.
template <class Op, class EA, class EB, class EY, bool kExact>
BinaryBlocks binary_blocks() {
  if constexpr (std::is_same_v<EA, F32Elem> && std::is_same_v<EB, F32Elem>) {
    return {&binary_block<Op, EA, EB, EY, kExact, 1, 1>, &binary_block<Op, EA, EB, EY, kExact, 0, 1>,
            &binary_block<Op, EA, EB, EY, kExact, 1, 0>};
  } else {
    const BinaryBlockFn any = &binary_block<Op, EA, EB, EY, kExact, kRunTimeStep, kRunTimeStep>;
    return {any, any, any};
  }
}

// An operation the kernel table vectorises on float32 names its function as `kVectorFn` (a BinaryFn).
template <class Op>
concept HasVectorFn = requires {
  Op::kVectorFn;
};

// Runs Op over inputs 0 and 1 (traits EA, EB) into output 0 (trait EY), in exact mode's variant when asked.
template <class Op, class EA, class EB, class EY>
void run_binary_op(const OpRun& run, double ns_per_element) {
  if constexpr (HasVectorFn<Op> && std::is_same_v<EA, F32Elem> && std::is_same_v<EB, F32Elem> &&
                std::is_same_v<EY, F32Elem>) {
    run_binary_broadcast(run, Op::kVectorFn, ns_per_element);
  } else if (EY::is_float && run.exact) {
    run_binary_broadcast(run, binary_blocks<Op, EA, EB, EY, EY::is_float>(), ns_per_element);
  } else {
    run_binary_broadcast(run, binary_blocks<Op, EA, EB, EY, false>(), ns_per_element);
  }
}

// Infer: inputs [0, count) must share one element type; returns it.
inline DType common_input_type(InferContext& ctx, size_t count) {
  const DType type = ctx.input_dtype(0);
  for (size_t i = 1; i < count; ++i) {
    if (ctx.input_dtype(i) != type) {
      ctx.fail("input element types " + std::string(dtype_name(type)) + " and " +
               std::string(dtype_name(ctx.input_dtype(i))) + " differ");
    }
  }
  return type;
}

// A two-input operator whose inputs share one element type. Op also gives `template <class E> static
// constexpr bool serves` (the element types it takes) and `kBoolOutput` (comparisons: the output is bool,
// else it has the input type and may overwrite input 0).
template <class Op>
class SameTypeBinary : public OpKernel {
 public:
  SameTypeBinary() {
    supports_exact = true;
    in_place_input = Op::kBoolOutput ? -1 : 0;
  }

  void infer(InferContext& ctx) const override {
    const DType type = common_input_type(ctx, 2);
    if (!visit_dtype(type, [](auto e) { return Op::template serves<decltype(e)>; }))
      unsupported_type(ctx, type);
    const DType out = Op::kBoolOutput ? DType::Bool : type;
    ctx.set_output(0, out, broadcast_output_shape(ctx, 2, out));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (Op::template serves<E>) {
        using EY = std::conditional_t<Op::kBoolOutput, BoolElem, E>;
        run_binary_op<Op, E, E, EY>(run, 0.5);
      }
    });
  }
};

// An arithmetic operator with a float32 vector kernel also runs on raw blocks (fused element-wise chains),
// through the same kernel its own run reaches for float32.
template <class Op>
class VectorBinary final : public SameTypeBinary<Op>, public F32BlockKernel {
 public:
  void run_f32_block(const KernelTable& kernels, bool exact, std::span<const F32BlockOperand> operands,
                     float* y, size_t n) const override {
    const F32BlockOperand& a = operands[0];
    const F32BlockOperand& b = operands[1];
    kernels.binary(Op::kVectorFn, exact, a.data, a.advances ? 1 : 0, b.data, b.advances ? 1 : 0, y, n);
  }
  std::optional<BinaryFn> binary_fn() const override { return Op::kVectorFn; }
};

template <class Op>
std::unique_ptr<OpKernel> make_same_type_binary(const NodeInfo& node) {
  require_inputs(node, 2);
  if constexpr (HasVectorFn<Op>)
    return std::make_unique<VectorBinary<Op>>();
  else
    return std::make_unique<SameTypeBinary<Op>>();
}

}  // namespace onemodel::ops

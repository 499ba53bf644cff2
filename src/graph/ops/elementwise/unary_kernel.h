// One-input element-wise kernels: y[i] = f(x[i]) over input 0 into output 0 (same shape), with each element
// loaded into its computing type and stored back, exact mode's NaN rewrite on float outputs, and fixed-chunk
// threading. The loop over f32 is flat and vectorises when f does.
#pragma once

#include <memory>

#include "graph/ops/elementwise/common.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/elementwise/f32_block.h"

namespace onemodel::ops {

template <class E, bool kExact, class F>
void map_range(const typename E::Stored* x, typename E::Stored* y, int64_t n, const F& f) {
  const auto loop = [n, &f](const typename E::Stored* in, typename E::Stored* out) {
    for (int64_t i = 0; i < n; ++i) {
      auto v = static_cast<typename E::Value>(f(E::load(in[i])));
      if constexpr (kExact && E::is_float) v = canonicalize(v);
      out[i] = E::store(v);
    }
  };
#if defined(__clang__)
  // In place, one pointer for both: LLVM's vectorised loop checks that two pointers do not overlap and runs
  // its scalar loop when they are equal (the wasm build's in-place Relu ran 4x slower than out of place).
  // GCC's check accepts equal pointers.
  if (x == y) return loop(y, y);
#endif
  loop(x, y);
}

// Applies f to every element of input 0 (trait E) into output 0; they may be the same memory.
template <class E, class F>
void map_elements(const OpRun& run, double ns_per_element, const F& f) {
  const auto* x = run.inputs[0].as<const typename E::Stored>();
  auto* y = run.outputs[0].as<typename E::Stored>();
  for_each_chunk(run.threads, run.outputs[0].count(), ns_per_element, [&](int64_t begin, int64_t end) {
    if (E::is_float && run.exact)
      map_range<E, true>(x + begin, y + begin, end - begin, f);
    else
      map_range<E, false>(x + begin, y + begin, end - begin, f);
  });
}

// The raw-block entry (f32_block.h) of a one-input operator that serves float32, so a fused element-wise
// chain calls its loop directly on each block instead of a whole OpRun per block; the same loop as run's, so
// the same bits. Operators without float32 have no entry. Either base holds the operator object.
template <class Op, bool = Op::template serves<F32Elem>>
class UnaryBase {
 protected:
  explicit UnaryBase(Op op) : op_(op) {}
  Op op_;
};

template <class Op>
class UnaryBase<Op, true> : public F32BlockKernel {
 public:
  void run_f32_block(const KernelTable& /*kernels*/, bool exact, std::span<const F32BlockOperand> operands,
                     float* y, size_t n) const override {
    const auto count = static_cast<int64_t>(n);
    if (exact)
      map_range<F32Elem, true>(operands[0].data, y, count, op_);
    else
      map_range<F32Elem, false>(operands[0].data, y, count, op_);
  }

 protected:
  explicit UnaryBase(Op op) : op_(op) {}
  Op op_;
};

// A one-input operator: Op gives `template <class E> static constexpr bool serves` and a const call operator
// on computing values; an Op object may carry attributes.
template <class Op>
class UnaryElementwise final : public OpKernel, public UnaryBase<Op> {
 public:
  explicit UnaryElementwise(Op op = {}) : UnaryBase<Op>(op) {
    supports_exact = true;
    in_place_input = 0;
  }

  void infer(InferContext& ctx) const override {
    const DType type = ctx.input_dtype(0);
    if (!visit_dtype(type, [](auto e) { return Op::template serves<decltype(e)>; }))
      unsupported_type(ctx, type);
    ctx.set_output(0, type, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto e) {
      using E = decltype(e);
      if constexpr (Op::template serves<E>) map_elements<E>(run, 0.5, this->op_);
    });
  }
};

template <class Op>
std::unique_ptr<OpKernel> make_unary_elementwise(const NodeInfo& node, Op op = {}) {
  require_inputs(node, 1);
  return std::make_unique<UnaryElementwise<Op>>(op);
}

}  // namespace onemodel::ops

#include "graph/ops/elementwise/legacy_broadcast.h"

#include <array>

#include "graph/forwarding_infer_context.h"
#include "graph/ops/elementwise/common.h"

namespace onemodel::ops {
namespace {

constexpr size_t kOperand = 1;  // the legacy layout only ever moved the second input

// Plan-time view of the node with input 1 reshaped; everything else is the node's own.
class LegacyInferContext final : public ForwardingInferContext {
 public:
  LegacyInferContext(InferContext& base, const Shape& operand)
      : ForwardingInferContext(base), operand_(operand) {
    if (const TensorRef* v = base.input_value(kOperand)) {
      value_ = *v;
      value_.shape = operand;
      has_value_ = true;
    }
  }
  const Shape& input_shape(size_t i) const override {
    return i == kOperand ? operand_ : base_.input_shape(i);
  }
  const TensorRef* input_value(size_t i) const override {
    if (i != kOperand) return base_.input_value(i);
    return has_value_ ? &value_ : nullptr;
  }
  const ConstTensor* input_constant(size_t i) const override {
    return i == kOperand ? nullptr : base_.input_constant(i);
  }

 private:
  Shape operand_;
  TensorRef value_;
  bool has_value_ = false;
};

class LegacyPrepareContext final : public PrepareContext {
 public:
  LegacyPrepareContext(PrepareContext& base, const Shape& operand) : base_(base), operand_(operand) {
    if (const TensorRef* v = base.input_value(kOperand)) {
      value_ = *v;
      value_.shape = operand;
      has_value_ = true;
    }
  }
  const TensorRef* input_value(size_t i) const override {
    if (i != kOperand) return base_.input_value(i);
    return has_value_ ? &value_ : nullptr;
  }
  DType input_dtype(size_t i) const override { return base_.input_dtype(i); }
  const Shape& input_shape(size_t i) const override {
    return i == kOperand ? operand_ : base_.input_shape(i);
  }
  const Shape& output_shape(size_t i) const override { return base_.output_shape(i); }
  bool exact() const override { return base_.exact(); }
  const KernelTable& kernels() const override { return base_.kernels(); }

 private:
  PrepareContext& base_;
  Shape operand_;
  TensorRef value_;
  bool has_value_ = false;
};

class LegacyOperand final : public OpKernel {
 public:
  LegacyOperand(std::unique_ptr<OpKernel> inner, LegacyLayout layout)
      : inner_(std::move(inner)), layout_(layout) {
    supports_exact = inner_->supports_exact;
    in_place_input = inner_->in_place_input;
  }

  void infer(InferContext& ctx) const override {
    const LegacyOperandShape operand =
        legacy_operand_shape(ctx.input_shape(0), ctx.input_shape(kOperand), layout_);
    if (!operand.error.empty()) ctx.fail(operand.error);
    LegacyInferContext legacy(ctx, operand.shape);
    inner_->infer(legacy);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    LegacyPrepareContext legacy(ctx, reshaped(ctx.input_shape(0), ctx.input_shape(kOperand)));
    return inner_->prepare(legacy);
  }

  void run(const OpRun& run) const override {
    std::array<TensorRef, 2> inputs = {run.inputs[0], run.inputs[kOperand]};
    inputs[kOperand].shape = reshaped(inputs[0].shape, inputs[kOperand].shape);
    OpRun sub = run;
    sub.inputs = inputs;
    inner_->run(sub);
  }

 private:
  // For shapes infer accepted (run and prepare only see those).
  Shape reshaped(const Shape& first, const Shape& second) const {
    return legacy_operand_shape(first, second, layout_).shape;
  }

  std::unique_ptr<OpKernel> inner_;
  LegacyLayout layout_;
};

}  // namespace

LegacyOperandShape legacy_operand_shape(const Shape& first, const Shape& second, const LegacyLayout& layout) {
  if (!layout.broadcast) {
    if (second != first)
      return {{},
              "without broadcast = 1 the operands must have one shape, not " + first.str() + " and " +
                  second.str()};
    return {second, {}};
  }
  if (second.rank > first.rank)
    return {{}, "operand " + second.str() + " has a higher rank than " + first.str()};
  if (second.count() == 1) return {Shape{}, {}};
  const int64_t free_dims = first.rank - second.rank;
  const int64_t axis = layout.axis.value_or(free_dims);
  if (axis < 0 || axis > free_dims) {
    return {{},
            "axis " + std::to_string(axis) + " does not place operand " + second.str() + " inside " +
                first.str()};
  }
  Shape out = second;
  for (int i = 0; i < second.rank; ++i) {
    const int64_t extent = second[i], target = first[static_cast<int>(axis) + i];
    if (extent != target && extent != 1) {
      return {{},
              "operand " + second.str() + " at axis " + std::to_string(axis) + " does not broadcast to " +
                  first.str()};
    }
  }
  out.rank = static_cast<int32_t>(first.rank - axis);
  for (int i = second.rank; i < out.rank; ++i) out[i] = 1;
  return {out, {}};
}

LegacyLayout legacy_layout(const NodeInfo& node) {
  LegacyLayout layout;
  layout.broadcast = node.get_int("broadcast", 0) != 0;
  if (node.find("axis") != nullptr) layout.axis = node.get_int("axis", 0);
  return layout;
}

std::unique_ptr<OpKernel> wrap_legacy_operand(std::unique_ptr<OpKernel> inner, LegacyLayout layout) {
  return std::make_unique<LegacyOperand>(std::move(inner), layout);
}

}  // namespace onemodel::ops

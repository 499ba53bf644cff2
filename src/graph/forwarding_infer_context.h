// An InferContext that answers every call from another one: the base of the plan-time views that change a
// few answers for a wrapped kernel (the half-precision adapter's widened inputs, a legacy operator's reshaped
// operand). A view that changes an input's type, shape or value must also override input_constant for it.
#pragma once

#include <utility>

#include "graph/op.h"

namespace onemodel {

class ForwardingInferContext : public InferContext {
 public:
  explicit ForwardingInferContext(InferContext& base) : base_(base) {}
  size_t num_inputs() const override { return base_.num_inputs(); }
  size_t num_outputs() const override { return base_.num_outputs(); }
  bool has_input(size_t i) const override { return base_.has_input(i); }
  DType input_dtype(size_t i) const override { return base_.input_dtype(i); }
  const Shape& input_shape(size_t i) const override { return base_.input_shape(i); }
  const TensorRef* input_value(size_t i) const override { return base_.input_value(i); }
  void set_output(size_t i, DType dtype, const Shape& shape) override { base_.set_output(i, dtype, shape); }
  void set_constant_output(size_t i, ConstTensor value) override {
    base_.set_constant_output(i, std::move(value));
  }
  void require_run_time_values() override { base_.require_run_time_values(); }
  bool exact() const override { return base_.exact(); }
  const NodeInfo& node() const override { return base_.node(); }
  const KernelTable* kernels() const override { return base_.kernels(); }
  ThreadContext threads() const override { return base_.threads(); }
  void outputs_known_after_run() override { base_.outputs_known_after_run(); }
  const ConstTensor* input_constant(size_t i) const override { return base_.input_constant(i); }

 protected:
  InferContext& base_;
};

}  // namespace onemodel

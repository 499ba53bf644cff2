// SequenceEmpty (a sequence of no tensors, of the `dtype` attribute's type, float by default) and
// SequenceConstruct (its inputs, which share one element type, in order).
#include "graph/ops/dtype_attribute.h"
#include "graph/ops/sequence/factories.h"
#include "graph/ops/sequence/sequence_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class SequenceEmpty final : public PackedKernel {
 public:
  explicit SequenceEmpty(DType type) : type_(type) {}

  void run(const OpRun& run) const override {
    packed::Writer w = allocate_packed(run, 0, packed::sequence_size(0));
    w.header(packed::Kind::Sequence);
    w.sequence_header(type_, 0);
  }

 private:
  DType type_;
};

class SequenceConstruct final : public PackedKernel {
 public:
  void run(const OpRun& run) const override {
    const DType type = run.inputs[0].dtype;
    size_t bytes = 0;
    for (size_t i = 0; i < run.inputs.size(); ++i) {
      const TensorRef& t = run.inputs[i];
      if (t.dtype != type) {
        run_fail(run, "input " + std::to_string(i) + " is " + std::string(dtype_name(t.dtype)) +
                          ", input 0 is " + std::string(dtype_name(type)));
      }
      bytes += packed::record_size(t);
    }
    packed::Writer w = allocate_packed(run, 0, packed::sequence_size(bytes));
    w.header(packed::Kind::Sequence);
    w.sequence_header(type, run.inputs.size());
    for (const TensorRef& t : run.inputs) w.record(t);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_empty(const NodeInfo& node) {
  require_inputs(node, 0, 0);
  return std::make_unique<SequenceEmpty>(dtype_attribute(node, "dtype").value_or(DType::F32));
}

std::unique_ptr<OpKernel> make_sequence_construct(const NodeInfo& node) {
  if (node.num_inputs() < 1) node.fail("needs at least one input");
  require_inputs(node, node.num_inputs(), node.num_inputs());
  return std::make_unique<SequenceConstruct>();
}

}  // namespace onemodel::ops

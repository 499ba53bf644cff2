// SequenceAt (a copy of the element at a position) and SequenceLength (the element count as an int64
// scalar).
#include "graph/ops/sequence/factories.h"
#include "graph/ops/sequence/sequence_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class SequenceAt final : public PackedKernel {
 public:
  void run(const OpRun& run) const override {
    const packed::SequenceView s = read_sequence(run, 0);
    copy_to_output(run, 0, s.at(position_input(run, 1, s.size(), false)).tensor);
  }
};

class SequenceLength final : public PackedKernel {
 public:
  void run(const OpRun& run) const override {
    const packed::SequenceView s = read_sequence(run, 0);
    *run.allocator->allocate(0, DType::I64, Shape{}).as<int64_t>() = static_cast<int64_t>(s.size());
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_at(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<SequenceAt>();
}

std::unique_ptr<OpKernel> make_sequence_length(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<SequenceLength>();
}

}  // namespace onemodel::ops

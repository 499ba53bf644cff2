// SequenceInsert (a tensor of the sequence's element type placed at a position, appended by default) and
// SequenceErase (the element at a position removed, the last by default). Untouched elements are copied as
// whole records.
#include "graph/ops/sequence/factories.h"
#include "graph/ops/sequence/sequence_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// The records before element `at`, and those from `at` on.
std::pair<std::span<const std::byte>, std::span<const std::byte>> split_records(const packed::SequenceView& s,
                                                                                size_t at) {
  size_t offset = 0, i = 0;
  s.for_each([&](const packed::Record& r) {
    if (i++ < at) offset += r.bytes.size();
  });
  return {s.records().first(offset), s.records().subspan(offset)};
}

class SequenceInsert final : public PackedKernel {
 public:
  void run(const OpRun& run) const override {
    const packed::SequenceView s = read_sequence(run, 0);
    const TensorRef& t = run.inputs[1];
    if (t.dtype != s.element_type()) {
      run_fail(run, "cannot insert a " + std::string(dtype_name(t.dtype)) + " tensor into a sequence of " +
                        std::string(dtype_name(s.element_type())));
    }
    const size_t at = run.has_input(2) ? position_input(run, 2, s.size(), true) : s.size();
    const auto [before, after] = split_records(s, at);
    packed::Writer w =
        allocate_packed(run, 0, packed::sequence_size(s.records().size() + packed::record_size(t)));
    w.header(packed::Kind::Sequence);
    w.sequence_header(s.element_type(), s.size() + 1);
    w.raw(before);
    w.record(t);
    w.raw(after);
  }
};

class SequenceErase final : public PackedKernel {
 public:
  void run(const OpRun& run) const override {
    const packed::SequenceView s = read_sequence(run, 0);
    if (s.size() == 0) run_fail(run, "cannot erase from an empty sequence");
    const size_t at = run.has_input(1) ? position_input(run, 1, s.size(), false) : s.size() - 1;
    const auto [before, from] = split_records(s, at);
    const size_t erased = s.at(at).bytes.size();
    packed::Writer w = allocate_packed(run, 0, packed::sequence_size(s.records().size() - erased));
    w.header(packed::Kind::Sequence);
    w.sequence_header(s.element_type(), s.size() - 1);
    w.raw(before);
    w.raw(from.subspan(erased));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sequence_insert(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  return std::make_unique<SequenceInsert>();
}

std::unique_ptr<OpKernel> make_sequence_erase(const NodeInfo& node) {
  require_inputs(node, 1, 2);
  return std::make_unique<SequenceErase>();
}

}  // namespace onemodel::ops

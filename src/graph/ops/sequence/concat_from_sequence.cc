// ConcatFromSequence: the elements of a non-empty sequence joined along `axis`, or stacked along a new axis
// inserted at `axis` when `new_axis` = 1 (then every element has the same shape and the axis ranges over
// [-rank-1, rank]).
#include <cstring>

#include "graph/ops/sequence/factories.h"
#include "graph/ops/sequence/sequence_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class ConcatFromSequence final : public PackedKernel {
 public:
  ConcatFromSequence(int64_t axis, bool new_axis) : axis_(axis), new_axis_(new_axis) {}

  void run(const OpRun& run) const override {
    const packed::SequenceView s = read_sequence(run, 0);
    if (s.size() == 0) run_fail(run, "cannot concatenate an empty sequence");
    const Shape first = s.at(0).tensor.shape;
    const int rank = first.rank;
    if (new_axis_ && rank + 1 > kMaxRank) run_fail(run, "stacking rank-8 elements needs rank 9");
    const int axis = normalize_axis(axis_, new_axis_ ? rank + 1 : rank);
    if (axis < 0) {
      run_fail(run, "axis " + std::to_string(axis_) + " is outside the range for elements of rank " +
                        std::to_string(rank) + (new_axis_ ? " with new_axis" : ""));
    }
    // Output shape; elements must match `first` on every axis but the joined one.
    int64_t joined = 0;
    size_t index = 0;
    s.for_each([&](const packed::Record& r) {
      const Shape& e = r.tensor.shape;
      bool same = e.rank == rank;
      for (int d = 0; same && d < rank; ++d) same = e[d] == first[d] || (!new_axis_ && d == axis);
      if (!same) {
        run_fail(run, "element " + std::to_string(index) + " has shape " + e.str() + ", element 0 has " +
                          first.str());
      }
      joined += new_axis_ ? 1 : e[axis];
      ++index;
    });
    Shape out_shape = first;
    if (new_axis_) {
      for (int d = rank; d > axis; --d) out_shape[d] = out_shape[d - 1];
      out_shape.rank = rank + 1;
    }
    out_shape[axis] = joined;
    TensorRef& out = run.allocator->allocate(0, s.element_type(), out_shape);

    // Each outer slice of the output is every element's matching block in turn.
    const int64_t outer = first.count(0, axis);
    const size_t row_bytes =
        static_cast<size_t>(first.count(new_axis_ ? axis : axis + 1, rank)) * dtype_size(s.element_type());
    std::byte* dst = out.data;
    for (int64_t o = 0; o < outer; ++o) {
      s.for_each([&](const packed::Record& r) {
        const size_t block = static_cast<size_t>(new_axis_ ? 1 : r.tensor.shape[axis]) * row_bytes;
        if (block > 0) std::memcpy(dst, r.tensor.data + static_cast<size_t>(o) * block, block);
        dst += block;
      });
    }
  }

 private:
  int64_t axis_;
  bool new_axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_concat_from_sequence(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  if (!node.find("axis")) node.fail("the attribute 'axis' is required");
  const int64_t new_axis = node.get_int("new_axis", 0);
  if (new_axis != 0 && new_axis != 1) node.fail("new_axis must be 0 or 1, got " + std::to_string(new_axis));
  return std::make_unique<ConcatFromSequence>(node.get_int("axis", 0), new_axis == 1);
}

}  // namespace onemodel::ops

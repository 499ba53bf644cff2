// SplitToSequence: the input cut along `axis` into a sequence. Without `split` every part has extent 1 and
// `keepdims` = 0 drops the axis; a scalar `split` gives parts of that extent with a shorter last part; a 1-D
// `split` lists the extents, which must add up to the axis extent.
#include <cstring>

#include "graph/ops/sequence/factories.h"
#include "graph/ops/sequence/sequence_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class SplitToSequence final : public PackedKernel {
 public:
  SplitToSequence(int64_t axis, bool keepdims) : axis_(axis), keepdims_(keepdims) {}

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int axis = normalize_axis(axis_, x.shape.rank);
    if (axis < 0) {
      run_fail(run, "axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(x.shape.rank));
    }
    const int64_t extent = x.shape[axis];
    // The parts: `count` of extent `each`, except a last one of extent `last`, or the listed extents.
    int64_t each = 1, count = extent, last = 1;
    IntSeq listed;
    bool drop_axis = !keepdims_;
    if (run.has_input(1)) {
      drop_axis = false;
      const TensorRef& split = run.inputs[1];
      if ((split.dtype != DType::I32 && split.dtype != DType::I64) || split.shape.rank > 1) {
        run_fail(run, "split must be an int32 or int64 scalar or 1-D tensor");
      }
      if (split.shape.rank == 0) {
        each = IntSeq::of(split)[0];
        if (each <= 0) run_fail(run, "the split extent " + std::to_string(each) + " is not positive");
        count = (extent + each - 1) / each;
        last = extent - each * (count - 1);
      } else {
        listed = IntSeq::of(split);
        count = static_cast<int64_t>(listed.size());
        int64_t total = 0;
        for (size_t p = 0; p < listed.size(); ++p) {
          if (listed[p] < 0 || listed[p] > extent)
            run_fail(run, "split holds the extent " + std::to_string(listed[p]));
          total += listed[p];
        }
        if (total != extent) {
          run_fail(run, "split extents add up to " + std::to_string(total) + ", not the axis extent " +
                            std::to_string(extent));
        }
      }
    }
    auto part_extent = [&](int64_t p) {
      if (!listed.empty()) return listed[static_cast<size_t>(p)];
      return p == count - 1 ? last : each;
    };
    auto part_shape = [&](int64_t p) {
      Shape s = x.shape;
      s[axis] = part_extent(p);
      if (drop_axis) {
        for (int d = axis; d + 1 < s.rank; ++d) s[d] = s[d + 1];
        --s.rank;
      }
      return s;
    };
    size_t bytes = 0;
    for (int64_t p = 0; p < count; ++p) bytes += packed::record_size(x.dtype, part_shape(p));
    packed::Writer w = allocate_packed(run, 0, packed::sequence_size(bytes));
    w.header(packed::Kind::Sequence);
    w.sequence_header(x.dtype, static_cast<size_t>(count));

    // A part is `outer` blocks, one from each outer slice of the input.
    const int64_t outer = x.shape.count(0, axis);
    const size_t row_bytes = static_cast<size_t>(x.shape.count(axis + 1, x.shape.rank)) * dtype_size(x.dtype);
    const size_t slice_bytes = static_cast<size_t>(extent) * row_bytes;
    int64_t start = 0;
    for (int64_t p = 0; p < count; ++p) {
      std::byte* part = w.begin_record(x.dtype, part_shape(p));
      const size_t block = static_cast<size_t>(part_extent(p)) * row_bytes;
      for (int64_t o = 0; o < outer && block > 0; ++o) {
        std::memcpy(part + static_cast<size_t>(o) * block,
                    x.data + static_cast<size_t>(o) * slice_bytes + static_cast<size_t>(start) * row_bytes,
                    block);
      }
      start += part_extent(p);
    }
  }

 private:
  int64_t axis_;
  bool keepdims_;
};

}  // namespace

std::unique_ptr<OpKernel> make_split_to_sequence(const NodeInfo& node) {
  require_inputs(node, 1, 2);
  return std::make_unique<SplitToSequence>(node.get_int("axis", 0), node.get_int("keepdims", 1) != 0);
}

}  // namespace onemodel::ops

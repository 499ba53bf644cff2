// Split: the input cut along `axis` into one part per output. Sizes come from the `split` attribute (before
// opset 13) or input (13+); without sizes the parts are equal before opset 18, and from 18 each holds
// ceil(extent / num_outputs) with the last taking the rest.
#include <cstring>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class Split final : public OpKernel {
 public:
  Split(int64_t axis, std::vector<int64_t> sizes, bool sizes_from_input, bool ceil_parts)
      : axis_(axis), sizes_(std::move(sizes)), sizes_from_input_(sizes_from_input), ceil_parts_(ceil_parts) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    const int axis = normalize_axis(axis_, in.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(in.rank));
    const size_t parts = ctx.num_outputs();
    const int64_t extent = in[axis];
    std::vector<int64_t> sizes = sizes_;
    if (sizes_from_input_) {
      const auto listed = int_list_input(ctx, 1, "split");
      if (!listed) return;
      sizes = *listed;
    }
    if (sizes.empty()) {
      if (ceil_parts_) {
        const auto n = static_cast<int64_t>(parts);
        const int64_t each = (extent + n - 1) / n;
        if (extent > 0 && each * (n - 1) >= extent) ctx.fail("the axis is too short for that many outputs");
        sizes.assign(parts, each);
        sizes.back() = extent - each * (n - 1);
      } else {
        if (extent % static_cast<int64_t>(parts) != 0) {
          ctx.fail("axis extent " + std::to_string(extent) + " does not divide into " +
                   std::to_string(parts) + " equal parts");
        }
        sizes.assign(parts, extent / static_cast<int64_t>(parts));
      }
    }
    if (sizes.size() != parts)
      ctx.fail("split lists " + std::to_string(sizes.size()) + " sizes for " + std::to_string(parts) +
               " outputs");
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > kMaxElements) ctx.fail("split holds the size " + std::to_string(s));
      total += s;
    }
    if (total != extent)
      ctx.fail("split sizes add up to " + std::to_string(total) + ", not the extent " +
               std::to_string(extent));
    for (size_t p = 0; p < parts; ++p) {
      Shape out = in;
      out[axis] = sizes[p];
      ctx.set_output(p, ctx.input_dtype(0), out);
    }
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int axis = normalize_axis(axis_, x.shape.rank);
    const int64_t outer = x.shape.count(0, axis);
    const size_t inner_bytes =
        static_cast<size_t>(x.shape.count(axis + 1, x.shape.rank)) * dtype_size(x.dtype);
    const std::byte* src = x.data;
    for (int64_t o = 0; o < outer; ++o) {
      for (const TensorRef& y : run.outputs) {
        const size_t block = static_cast<size_t>(y.shape[axis]) * inner_bytes;
        if (block == 0) continue;
        std::memcpy(y.data + static_cast<size_t>(o) * block, src, block);
        src += block;
      }
    }
  }

 private:
  int64_t axis_;
  std::vector<int64_t> sizes_;
  bool sizes_from_input_, ceil_parts_;
};

}  // namespace

std::unique_ptr<OpKernel> make_split(const NodeInfo& node) {
  const bool from_input = node.opset() >= 13;
  require_inputs(node, 1, from_input ? 2 : 1);
  if (node.num_outputs() == 0) node.fail("needs at least one output");
  const bool ceil_parts = node.opset() >= 18;
  if (ceil_parts && node.find("num_outputs") != nullptr) {
    const int64_t n = node.get_int("num_outputs", 0);
    if (n != static_cast<int64_t>(node.num_outputs()))
      node.fail("num_outputs does not match the output count");
    if (node.has_input(1)) node.fail("has both num_outputs and the split input");
  }
  return std::make_unique<Split>(node.get_int("axis", 0),
                                 from_input ? std::vector<int64_t>{} : node.get_ints("split"), from_input,
                                 ceil_parts);
}

}  // namespace onemodel::ops

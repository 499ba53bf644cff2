// DepthToSpace and SpaceToDepth (opset 1+, `mode` from 11): [N, C, H, W] tensors whose channels trade places
// with blocksize x blocksize spatial blocks. Each is one 6-D transpose of a reshaped view (transpose.h):
// - DepthToSpace DCR: [N, b, b, C/b^2, H, W], axes (0, 3, 4, 1, 5, 2) -> [N, C/b^2, H*b, W*b];
// - DepthToSpace CRD: [N, C/b^2, b, b, H, W], axes (0, 1, 4, 2, 5, 3);
// - SpaceToDepth:     [N, C, H/b, b, W/b, b], axes (0, 3, 5, 1, 2, 4) -> [N, C*b^2, H/b, W/b].
#include <array>
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/transpose.h"

namespace onemodel::ops {
namespace {

enum class Rearrange { DepthToSpaceDcr, DepthToSpaceCrd, SpaceToDepth };

class DepthSpace final : public OpKernel {
 public:
  DepthSpace(Rearrange kind, int64_t block) : kind_(kind), block_(block) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& in = ctx.input_shape(0);
    if (in.rank != 4) ctx.fail("the input " + in.str() + " must have rank 4 ([N, C, H, W])");
    const int64_t b = block_;
    Shape out = in;
    if (kind_ == Rearrange::SpaceToDepth) {
      if (in[2] % b != 0 || in[3] % b != 0)
        ctx.fail("the height and width of " + in.str() + " must be multiples of blocksize " +
                 std::to_string(b));
      out[1] = in[1] * b * b;
      out[2] = in[2] / b;
      out[3] = in[3] / b;
    } else {
      if (in[1] % (b * b) != 0)
        ctx.fail("the channels of " + in.str() +
                 " must be a multiple of blocksize^2 = " + std::to_string(b * b));
      out[1] = in[1] / (b * b);
      out[2] = in[2] * b;
      out[3] = in[3] * b;
    }
    check_dims(ctx, out.span(), dtype_size(ctx.input_dtype(0)), "the output");
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    if (in.count() == 0) return;
    const int64_t n = in.shape[0], c = in.shape[1], h = in.shape[2], w = in.shape[3], b = block_;
    std::array<int64_t, 6> dims;
    std::array<int, 6> perm;
    switch (kind_) {
      case Rearrange::DepthToSpaceDcr:
        dims = {n, b, b, c / (b * b), h, w};
        perm = {0, 3, 4, 1, 5, 2};
        break;
      case Rearrange::DepthToSpaceCrd:
        dims = {n, c / (b * b), b, b, h, w};
        perm = {0, 1, 4, 2, 5, 3};
        break;
      case Rearrange::SpaceToDepth:
        dims = {n, c, h / b, b, w / b, b};
        perm = {0, 3, 5, 1, 2, 4};
        break;
    }
    transpose_copy(in.data, run.outputs[0].data, dtype_size(in.dtype), dims, perm);
  }

 private:
  Rearrange kind_;
  int64_t block_;
};

int64_t block_size(const NodeInfo& node) {
  if (node.find("blocksize") == nullptr) node.fail("the blocksize attribute is required");
  const int64_t b = node.get_int("blocksize", 0);
  // Bounded so that C * b^2 cannot overflow int64 before check_dims() judges the output extents.
  if (b < 1 || b > 65536) node.fail("blocksize " + std::to_string(b) + " is outside [1, 65536]");
  return b;
}

}  // namespace

std::unique_ptr<OpKernel> make_depth_to_space(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  const std::string mode = node.opset() >= 11 ? node.get_string("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD") node.fail("unknown mode '" + mode + "'");
  return std::make_unique<DepthSpace>(mode == "DCR" ? Rearrange::DepthToSpaceDcr : Rearrange::DepthToSpaceCrd,
                                      block_size(node));
}

std::unique_ptr<OpKernel> make_space_to_depth(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<DepthSpace>(Rearrange::SpaceToDepth, block_size(node));
}

}  // namespace onemodel::ops

// InstanceNormalization (opset 6) and GroupNormalization (opset 18), float32. A row is one (sample, channel)
// plane or one (sample, group) block of C / num_groups channels, normalised by norm_rows.h. Instance and
// opset 18-20 group normalisation take one scale and bias per row (per channel, per group); from opset 21
// GroupNormalization has per-channel parameters, each held across its channel's plane. Rows run in fixed
// chunks; one code path serves both modes.
#include <algorithm>
#include <string>

#include "graph/ops/norm/factories.h"
#include "graph/ops/norm/norm_rows.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

class GroupNorm final : public OpKernel {
 public:
  // groups == 0: InstanceNormalization (one group per channel).
  GroupNorm(const NodeInfo& node, int64_t groups, bool per_channel)
      : groups_(groups), per_channel_(per_channel), epsilon_(node.get_float("epsilon", 1e-5f)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const char* name = groups_ == 0 ? "InstanceNormalization" : "GroupNormalization";
    for (size_t i = 0; i < 3; ++i) {
      if (ctx.input_dtype(i) != DType::F32) {
        ctx.node().unsupported(std::string(name) + ": element type " +
                               std::string(dtype_name(ctx.input_dtype(i))) + " is not supported");
      }
    }
    const Shape& in = ctx.input_shape(0);
    if (in.rank < 2) ctx.fail("the input needs a batch and a channel axis");
    const int64_t channels = in[1];
    if (groups_ != 0 && channels % groups_ != 0) {
      ctx.fail(std::to_string(channels) + " channels do not split into " + std::to_string(groups_) +
               " groups");
    }
    const int64_t params = per_channel_ ? channels : groups_;
    for (size_t i = 1; i < 3; ++i) {
      const Shape& p = ctx.input_shape(i);
      if (p.rank != 1 || p[0] != params) {
        ctx.fail(std::string(i == 1 ? "scale" : "bias") + " must hold " + std::to_string(params) + " values");
      }
    }
    ctx.set_output(0, DType::F32, in);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int64_t channels = x.shape[1], spatial = x.shape.count(2, x.shape.rank);
    const int64_t groups = groups_ == 0 ? channels : groups_;
    const int64_t rows = x.shape[0] * groups, per_group = channels / groups, cols = per_group * spatial;
    if (rows * cols == 0) return;
    const float* src = x.as<const float>();
    const float* scale = run.inputs[1].as<const float>();
    const float* bias = run.inputs[2].as<const float>();
    float* dst = run.outputs[0].as<float>();
    const int64_t per_chunk = std::max<int64_t>(1, kNormChunkElements / cols);
    auto chunk = [&](int64_t c) {
      for (int64_t r = c * per_chunk; r < std::min(rows, (c + 1) * per_chunk); ++r) {
        const int64_t g = r % groups;
        const RowStats s = row_stats(src + r * cols, cols, epsilon_, false);
        if (per_channel_) {
          const int64_t first = g * per_group;
          normalize_row(src + r * cols, dst + r * cols, s, scale + first, bias + first, per_group, spatial);
        } else {
          normalize_row(src + r * cols, dst + r * cols, s, scale + g, bias + g, 1, cols);
        }
      }
    };
    parallel_for(run.threads, (rows + per_chunk - 1) / per_chunk, chunk,
                 4.0 * static_cast<double>(rows * cols));
  }

 private:
  int64_t groups_;
  bool per_channel_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_instance_norm(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  return std::make_unique<GroupNorm>(node, 0, true);
}

std::unique_ptr<OpKernel> make_group_norm(const NodeInfo& node) {
  require_inputs(node, 3, 3);
  const int64_t groups = node.get_int("num_groups", 0);
  if (groups <= 0) node.fail("num_groups must be positive");
  return std::make_unique<GroupNorm>(node, groups, node.opset() >= 21);
}

}  // namespace onemodel::ops

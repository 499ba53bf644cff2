// LayerNormalization (opset 17) and RMSNormalization (opset 23), float32. The input is rows x cols with cols
// the product of the dimensions from `axis` on; each row is normalised by the path's NormKernels, the row
// step of norm_rows.h in vectors with the same bits (RMSNormalization with mean 0). Scale and B broadcast to
// the normalised dimensions and are expanded to full rows when they are smaller. LayerNormalization's
// optional Mean and InvStdDev outputs hold each row's mean and inverse standard deviation. Rows run in fixed
// chunks; one code path serves both modes.
#include <algorithm>
#include <string>

#include "graph/ops/norm/factories.h"
#include "graph/ops/norm/norm_rows.h"
#include "graph/ops/shape/op_inputs.h"
#include "kernels/norm/norm_kernels.h"

namespace onemodel::ops {
namespace {

class LayerNorm final : public OpKernel {
 public:
  LayerNorm(const NodeInfo& node, bool rms)
      : rms_(rms), axis_(node.get_int("axis", -1)), epsilon_(node.get_float("epsilon", 1e-5f)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const char* name = rms_ ? "RMSNormalization" : "LayerNormalization";
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.has_input(i) && ctx.input_dtype(i) != DType::F32) {
        ctx.node().unsupported(std::string(name) + ": element type " +
                               std::string(dtype_name(ctx.input_dtype(i))) + " is not supported");
      }
    }
    const Shape& in = ctx.input_shape(0);
    const int axis = normalize_axis(axis_, in.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(in.rank));
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) continue;
      const Shape& p = ctx.input_shape(i);
      bool fits = p.rank <= in.rank - axis;
      for (int d = 0; fits && d < p.rank; ++d) {
        const int64_t target = in[in.rank - p.rank + d];
        fits = p[d] == target || p[d] == 1;
      }
      if (!fits)
        ctx.fail(std::string(i == 1 ? "Scale" : "B") + " does not broadcast to the normalised dimensions");
    }
    ctx.set_output(0, DType::F32, in);
    Shape stats = in;
    for (int a = axis; a < in.rank; ++a) stats.dims[static_cast<size_t>(a)] = 1;
    for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, DType::F32, stats);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[0];
    const int axis = normalize_axis(axis_, x.shape.rank);
    const int64_t rows = x.shape.count(0, axis), cols = x.shape.count(axis, x.shape.rank);
    if (rows * cols == 0) return;
    const float* scale = full_row(run, run.inputs[1], x.shape, axis);
    const float* bias = run.has_input(2) ? full_row(run, run.inputs[2], x.shape, axis) : nullptr;
    float* mean = output(run, 1);
    float* inv = output(run, 2);
    const NormKernels* kernels = norm_kernels(run.kernels->path);
    const float* src = x.as<const float>();
    float* dst = run.outputs[0].as<float>();
    const int64_t per_chunk = std::max<int64_t>(1, kNormChunkElements / cols);
    auto chunk = [&](int64_t c) {
      const int64_t first = c * per_chunk;
      LayerNormRowsArgs args;
      args.x = src + first * cols;
      args.y = dst + first * cols;
      args.rows = std::min(rows - first, per_chunk);
      args.cols = cols;
      args.epsilon = epsilon_;
      args.rms = rms_;
      args.scale = scale;
      args.bias = bias;
      args.mean = mean != nullptr ? mean + first : nullptr;
      args.inv_std_dev = inv != nullptr ? inv + first : nullptr;
      kernels->layer_norm_rows(args);
    };
    parallel_for(run.threads, (rows + per_chunk - 1) / per_chunk, chunk,
                 4.0 * static_cast<double>(rows * cols));
  }

 private:
  static float* output(const OpRun& run, size_t i) {
    return i < run.outputs.size() && run.outputs[i].data != nullptr ? run.outputs[i].as<float>() : nullptr;
  }

  // The parameter as one value per element of a row: itself when it already has every element, else
  // broadcast (right-aligned) into scratch.
  static const float* full_row(const OpRun& run, const TensorRef& p, const Shape& in, int axis) {
    const int64_t cols = in.count(axis, in.rank);
    if (p.count() == cols) return p.as<const float>();
    float* row = run.scratch->allocate_array<float>(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) {
      int64_t index = 0, rest = j, stride = 1;
      for (int d = p.shape.rank - 1; d >= 0; --d) {
        const int64_t extent = in[in.rank - p.shape.rank + d];
        if (p.shape[d] != 1) index += (rest % extent) * stride;
        stride *= p.shape[d];
        rest /= extent;
      }
      row[j] = p.as<const float>()[index];
    }
    return row;
  }

  bool rms_;
  int64_t axis_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<OpKernel> make_layer_norm(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  if (node.num_outputs() > 3) node.fail("has more than 3 outputs");
  return std::make_unique<LayerNorm>(node, false);
}

std::unique_ptr<OpKernel> make_rms_norm(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  if (node.num_outputs() != 1) node.fail("has more than 1 output");
  return std::make_unique<LayerNorm>(node, true);
}

}  // namespace onemodel::ops

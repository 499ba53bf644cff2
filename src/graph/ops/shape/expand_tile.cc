// Expand and Tile: copies that repeat the input along axes, both served by mapped_copy with the output shape
// alone deciding which input coordinate each output coordinate reads.
#include <string>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/mapped_copy.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// Expand: the bidirectional broadcast of the input and the shape input (an input extent may exceed a 1).
class Expand final : public OpKernel {
 public:
  Expand() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const auto dims = int_seq_input(ctx, 1, "shape");
    if (!dims) return;
    if (ctx.input_shape(1).rank != 1) ctx.fail("shape must be a 1-D tensor");
    if (dims->size() > static_cast<size_t>(kMaxRank)) ctx.fail("shape has more than 8 entries");
    Shape target;
    target.rank = static_cast<int32_t>(dims->size());
    for (size_t i = 0; i < dims->size(); ++i) {
      if ((*dims)[i] < 0) ctx.fail("shape has the negative extent " + std::to_string((*dims)[i]));
      target[static_cast<int>(i)] = (*dims)[i];
    }
    Shape out;
    if (!broadcast_shapes(ctx.input_shape(0), target, out)) {
      ctx.fail("cannot broadcast " + ctx.input_shape(0).str() + " to " + target.str());
    }
    check_dims(ctx, out.span(), dtype_size(ctx.input_dtype(0)), "Expand output");
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& out = run.outputs[0];
    // The input seen with leading extents of 1 up to the output's rank.
    TensorRef in = run.inputs[0];
    const int lead = out.shape.rank - in.shape.rank;
    in.shape.rank = out.shape.rank;
    for (int a = out.shape.rank - 1; a >= 0; --a) in.shape[a] = a >= lead ? run.inputs[0].shape[a - lead] : 1;
    const AxisMaps maps = allocate_axis_maps(*run.scratch, out.shape);
    for (int a = 0; a < out.shape.rank; ++a) {
      for (int64_t i = 0; i < out.shape[a]; ++i)
        maps.axis[a][i] = static_cast<int32_t>(in.shape[a] == 1 ? 0 : i);
    }
    mapped_copy(in, out, maps, nullptr);
  }
};

// Tile: each axis repeated `repeats[a]` times (0 gives an empty axis).
class Tile final : public OpKernel {
 public:
  Tile() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const auto repeats = int_seq_input(ctx, 1, "repeats");
    if (!repeats) return;
    const Shape& in = ctx.input_shape(0);
    if (ctx.input_shape(1).rank != 1 || repeats->size() != static_cast<size_t>(in.rank)) {
      ctx.fail("repeats must be a 1-D tensor with one entry per input axis");
    }
    Shape out = in;
    for (int a = 0; a < in.rank; ++a) {
      const int64_t r = (*repeats)[static_cast<size_t>(a)];
      if (r < 0) ctx.fail("repeats holds the negative value " + std::to_string(r));
      if (r > kMaxElements) ctx.fail("repeats holds the value " + std::to_string(r));
      out[a] = in[a] * r;  // both factors are below 2^31
    }
    check_dims(ctx, out.span(), dtype_size(ctx.input_dtype(0)), "Tile output");
    ctx.set_output(0, ctx.input_dtype(0), out);
  }

  void run(const OpRun& run) const override {
    const TensorRef& in = run.inputs[0];
    const TensorRef& out = run.outputs[0];
    const AxisMaps maps = allocate_axis_maps(*run.scratch, out.shape);
    for (int a = 0; a < out.shape.rank; ++a) {
      for (int64_t i = 0; i < out.shape[a]; ++i)
        maps.axis[a][i] = static_cast<int32_t>(i % in.shape[a]);  // out extent 0 when in's is
    }
    mapped_copy(in, out, maps, nullptr);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_expand(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<Expand>();
}

std::unique_ptr<OpKernel> make_tile(const NodeInfo& node) {
  require_inputs(node, 2, 2);
  return std::make_unique<Tile>();
}

}  // namespace onemodel::ops

// ConvTranspose (ops-conv.md "Conv, ConvTranspose"): float32 with one to three spatial axes. Per image and
// group, the session's GEMM forms Wg' * Xg (rows: output channel and tap, columns: input position; the sum
// over input channels inside the product), then col2im adds each output's landing taps in increasing tap
// order from +0. A constant weight is transposed once per plan so the product reads A row by row. The bias
// comes last.
#include "graph/ops/conv/conv_attrs.h"
#include "graph/ops/conv/factories.h"
#include "graph/ops/linalg/product.h"
#include "graph/ops/shape/op_inputs.h"
#include "kernels/conv/conv_lowering.h"

namespace onemodel::ops {
namespace {

// Per group g, the [Cout/G * taps] x [Cin/G] matrix Wg' row-major: element (i, p) = W[g*Cin/G + p][i].
struct TransposedWeight {
  ConstTensor storage;
};

class ConvTranspose final : public OpKernel {
 public:
  explicit ConvTranspose(ConvAttrs attrs) : attrs_(std::move(attrs)) { supports_exact = true; }

  void infer(InferContext& ctx) const override { infer_conv(ctx, attrs_, "ConvTranspose"); }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* w = ctx.input_value(1);
    if (w == nullptr || w->dtype != DType::F32) return nullptr;
    const Shape& ws = w->shape;
    const int64_t group_in = ws[0] / attrs_.group, rows = w->count() / (ws[0] == 0 ? 1 : ws[0]);
    auto state = std::make_shared<TransposedWeight>();
    state->storage = ConstTensor::allocate(DType::F32, Shape{w->count()});
    const float* src = w->as<const float>();
    float* dst = state->storage.ref.as<float>();
    for (int64_t g = 0; g < attrs_.group; ++g) {
      const float* sg = src + g * group_in * rows;
      float* dg = dst + g * group_in * rows;
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t p = 0; p < group_in; ++p) dg[i * group_in + p] = sg[p * rows + i];
      }
    }
    return state;
  }

  void run(const OpRun& run) const override {
    ConvShapes s;
    conv_shapes(attrs_, run.inputs[0].shape, run.inputs[1].shape, s);
    if (s.output.count() == 0) return;
    const ConvGeometry& g = s.geometry;
    const int64_t group_in = s.in_channels / attrs_.group, group_out = s.out_channels / attrs_.group;
    const int64_t rows = group_out * g.taps(), in_size = g.in_size(), out_size = g.out_size();
    const float* x = run.inputs[0].as<const float>();
    float* y = run.outputs[0].as<float>();
    const auto* transposed = static_cast<const TransposedWeight*>(run.state);
    GemmArgs args;
    args.m = rows;
    args.n = in_size;
    args.k = group_in;
    args.a_row = transposed != nullptr ? group_in : 1;
    args.a_col = transposed != nullptr ? 1 : rows;
    args.b_row = in_size;
    args.ldc = in_size;
    const float* w =
        transposed != nullptr ? transposed->storage.ref.as<const float>() : run.inputs[1].as<const float>();
    float* col = run.scratch->allocate_array<float>(static_cast<size_t>(rows * in_size));
    float* scratch = gemm_scratch(run, args, nullptr);
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t grp = 0; grp < attrs_.group; ++grp) {
        args.a = w + grp * group_in * rows;
        args.b = x + (n * s.in_channels + grp * group_in) * in_size;
        args.c = col;
        run_gemm(run, args, nullptr, scratch);  // nothing when there are no input positions: no tap lands
        col2im(g, col, group_out, y + (n * s.out_channels + grp * group_out) * out_size, run.exact,
               run.threads);
      }
    }
    if (run.has_input(2)) add_bias(run, s);
  }

 private:
  ConvAttrs attrs_;
};

}  // namespace

std::unique_ptr<OpKernel> make_conv_transpose(const NodeInfo& node) {
  require_inputs(node, 2, 3);
  return std::make_unique<ConvTranspose>(parse_conv_attrs(node, true));
}

}  // namespace onemodel::ops

// DynamicQuantizeLinear (int8.md "Operators"): uint8 quantization with a scale and zero point derived from
// the input's range, which always includes 0. lo = min(0, min x), hi = max(0, max x), scale = (hi - lo) /
// 255, zero_point = clamp(round_half_even(0 - lo / scale), 0, 255), then QuantizeLinear's rule per element.
// NaN elements take no part in the range. An all-zero input (lo = hi) gets scale 1, zero point 0 and output
// 0, as ONNX Runtime gives; a nonzero range that underflows keeps its zero scale. The zero point is NaN only
// for lo = -inf (scale inf) or lo = 0 with a zero scale; the specification leaves that case open and it is
// 255, as in ONNX Runtime (docs/oracle.md).

#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/quant/factories.h"
#include "graph/ops/quant/quant_common.h"
#include "kernels/int8/quantize_kernels.h"

namespace onemodel::ops {
namespace {

class DynamicQuantizeLinear final : public OpKernel {
 public:
  DynamicQuantizeLinear() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    if (ctx.input_dtype(0) != DType::F32) unsupported_type(ctx, ctx.input_dtype(0));
    ctx.set_output(0, DType::U8, ctx.input_shape(0));
    ctx.set_output(1, DType::F32, Shape{});
    ctx.set_output(2, DType::U8, Shape{});
  }

  void run(const OpRun& run) const override {
    const float* x = run.inputs[0].as<const float>();
    const int64_t n = run.inputs[0].count();
    const QuantizeKernels& kernels = *quantize_kernels(run.kernels->path);
    float lo = 0.0f, hi = 0.0f;
    kernels.range(x, static_cast<size_t>(n), &lo, &hi);
    const float scale = lo == hi ? 1.0f : (hi - lo) / 255.0f;
    const float shift = 0.0f - lo / scale;
    const uint8_t zero_point =
        shift != shift ? uint8_t{255} : quant::quantize_value<uint8_t>(shift, 1.0f, 0.0f);
    uint8_t* y = run.outputs[0].as<uint8_t>();
    const auto zp = static_cast<float>(zero_point);
    for_each_chunk(run.threads, n, 1.0, [&](int64_t begin, int64_t end) {
      kernels.to_u8(x + begin, scale, zp, y + begin, static_cast<size_t>(end - begin));
    });
    *run.outputs[1].as<float>() = canonicalize(scale);
    *run.outputs[2].as<uint8_t>() = zero_point;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_dynamic_quantize_linear(const NodeInfo& node) {
  require_inputs(node, 1);
  if (node.num_outputs() != 3) node.fail("expects 3 outputs (y, y_scale, y_zero_point)");
  return std::make_unique<DynamicQuantizeLinear>();
}

}  // namespace onemodel::ops

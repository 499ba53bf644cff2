// DequantizeLinear (int8.md "Operators"): y = float(x - zero_point) * scale in float32, per tensor or per
// axis, for uint8, int8, uint16, int16 and int32 x. The output has the scale's type (float32, or from opset
// 19 float16/bfloat16, rounded once from the float32 product). Blocked dequantization is not served. A node
// with constant inputs is folded at plan time by the runtime like any other.
#include <cmath>
#include <string>
#include <type_traits>

#include "core/half.h"
#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/quant/factories.h"
#include "graph/ops/quant/quant_common.h"
#include "kernels/int8/quantize_kernels.h"

namespace onemodel::ops {
namespace {

class DequantizeLinear final : public OpKernel {
 public:
  explicit DequantizeLinear(int64_t axis) : axis_(axis) { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const DType x = ctx.input_dtype(0);
    if (x != DType::U8 && x != DType::I8 && x != DType::U16 && x != DType::I16 && x != DType::I32) {
      unsupported_type(ctx, x);
    }
    quant::check_scale_and_zero_point(ctx, axis_);
    if (ctx.has_input(2) && ctx.input_dtype(2) != x) {
      ctx.fail("the zero point's type " + std::string(dtype_name(ctx.input_dtype(2))) + " differs from x's " +
               std::string(dtype_name(x)));
    }
    ctx.set_output(0, ctx.input_dtype(1), ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    switch (run.inputs[0].dtype) {
      case DType::U8:
        return dequantize<uint8_t>(run);
      case DType::I8:
        return dequantize<int8_t>(run);
      case DType::U16:
        return dequantize<uint16_t>(run);
      case DType::I16:
        return dequantize<int16_t>(run);
      default:
        return dequantize<int32_t>(run);
    }
  }

 private:
  static auto float_loop(const QuantizeKernels& kernels, const uint8_t*) { return kernels.from_u8; }
  static auto float_loop(const QuantizeKernels& kernels, const int8_t*) { return kernels.from_i8; }

  template <class X>
  void dequantize(const OpRun& run) const {
    const TensorRef& scale = run.inputs[1];
    const X* x = run.inputs[0].as<const X>();
    const TensorRef& y = run.outputs[0];
    const quant::ChannelLayout layout = quant::channel_layout(run.inputs[0].shape, axis_, scale.count());
    const QuantizeKernels& kernels = *quantize_kernels(run.kernels->path);  // 8-bit x to float32
    quant::for_each_channel_run(run, layout, 0.5, [&](int64_t begin, int64_t end, int64_t c) {
      const float s = quant::scale_at(scale, c);
      // The difference is exact (in 32 bits for the 8- and 16-bit types, where it is also exact as a float;
      // in 64 for int32); converting it is the one rounding before the product.
      using Diff = std::conditional_t<(sizeof(X) < 4), int32_t, int64_t>;
      const auto zp = static_cast<Diff>(quant::zero_point_at(run, 2, c));
      const auto value = [x, zp, s](int64_t i) {
        return canonicalize(static_cast<float>(static_cast<Diff>(x[i]) - zp) * s);
      };
      switch (y.dtype) {
        case DType::F16: {
          uint16_t* out = y.as<uint16_t>();
          for (int64_t i = begin; i < end; ++i) out[i] = float_to_half(value(i));
          break;
        }
        case DType::BF16: {
          uint16_t* out = y.as<uint16_t>();
          for (int64_t i = begin; i < end; ++i) out[i] = float_to_bfloat16(value(i));
          break;
        }
        default: {
          float* out = y.as<float>();
          const auto count = static_cast<size_t>(end - begin);
          // A finite scale cannot make a NaN, so the path's loop needs no canonicalisation.
          if constexpr (std::is_same_v<X, uint8_t> || std::is_same_v<X, int8_t>) {
            if (std::isfinite(s)) {
              float_loop(kernels, x)(x + begin, static_cast<int32_t>(zp), s, out + begin, count);
              break;
            }
          }
          for (int64_t i = begin; i < end; ++i) out[i] = value(i);
          break;
        }
      }
    });
  }

  int64_t axis_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dequantize_linear(const NodeInfo& node) {
  if (node.num_inputs() < 2 || node.num_inputs() > 3 || !node.has_input(0) || !node.has_input(1)) {
    node.fail("expects x, x_scale and an optional x_zero_point");
  }
  if (node.get_int("block_size", 0) != 0) {
    node.unsupported("DequantizeLinear: blocked dequantization is not supported");
  }
  return std::make_unique<DequantizeLinear>(node.get_int("axis", 1));
}

}  // namespace onemodel::ops

// QuantizeLinear (int8.md "Operators"): y = clamp(round_half_even(x / scale) + zero_point), per tensor or per
// axis, into uint8, int8, uint16 or int16. x is float32, float16, bfloat16 (widened exactly) or int32
// (converted to float32); the scale is float32, float16 or bfloat16. The output type comes from the zero
// point, else from `output_dtype` (opset 21), else uint8. `saturate` only concerns float8 outputs, which are
// not served; blocked quantization (`block_size`) is not served either.
#include <optional>
#include <string>
#include <type_traits>

#include "core/half.h"
#include "graph/ops/quant/factories.h"
#include "graph/ops/quant/quant_common.h"
#include "kernels/int8/quantize_kernels.h"

namespace onemodel::ops {
namespace {

bool is_quantized_type(DType t) {
  return t == DType::U8 || t == DType::I8 || t == DType::U16 || t == DType::I16;
}

class QuantizeLinear final : public OpKernel {
 public:
  QuantizeLinear(int64_t axis, std::optional<DType> output_type) : axis_(axis), output_type_(output_type) {
    supports_exact = true;  // one correctly rounded division and an exact rounding per element
  }

  void infer(InferContext& ctx) const override {
    const DType x = ctx.input_dtype(0);
    if (x != DType::F32 && x != DType::F16 && x != DType::BF16 && x != DType::I32) unsupported_type(ctx, x);
    quant::check_scale_and_zero_point(ctx, axis_);
    DType y = output_type_.value_or(DType::U8);
    if (ctx.has_input(2)) {
      const DType zp = ctx.input_dtype(2);
      if (!is_quantized_type(zp)) unsupported_type(ctx, zp);
      if (output_type_ && *output_type_ != zp) {
        ctx.fail("output_dtype " + std::string(dtype_name(y)) + " differs from the zero point's " +
                 std::string(dtype_name(zp)));
      }
      y = zp;
    }
    ctx.set_output(0, y, ctx.input_shape(0));
  }

  void run(const OpRun& run) const override {
    switch (run.outputs[0].dtype) {
      case DType::I8:
        return quantize<int8_t>(run);
      case DType::U16:
        return quantize<uint16_t>(run);
      case DType::I16:
        return quantize<int16_t>(run);
      default:
        return quantize<uint8_t>(run);
    }
  }

 private:
  template <class Q>
  void quantize(const OpRun& run) const {
    const TensorRef& x = run.inputs[0];
    const TensorRef& scale = run.inputs[1];
    Q* y = run.outputs[0].as<Q>();
    const quant::ChannelLayout layout = quant::channel_layout(x.shape, axis_, scale.count());
    const QuantizeKernels& kernels = *quantize_kernels(run.kernels->path);  // the 8-bit outputs of float32
    quant::for_each_channel_run(run, layout, 1.0, [&](int64_t begin, int64_t end, int64_t c) {
      const float s = quant::scale_at(scale, c);
      const auto zp = static_cast<float>(quant::zero_point_at(run, 2, c));
      // Locals per case, so the stores cannot alias the loop's values and each loop vectorises.
      Q* out = y;
      switch (x.dtype) {
        case DType::F32: {
          const float* in = x.as<const float>();
          if constexpr (std::is_same_v<Q, uint8_t>) {
            kernels.to_u8(in + begin, s, zp, out + begin, static_cast<size_t>(end - begin));
          } else if constexpr (std::is_same_v<Q, int8_t>) {
            kernels.to_i8(in + begin, s, zp, out + begin, static_cast<size_t>(end - begin));
          } else {
            for (int64_t i = begin; i < end; ++i) out[i] = quant::quantize_value<Q>(in[i], s, zp);
          }
          break;
        }
        case DType::F16: {
          const uint16_t* in = x.as<const uint16_t>();
          for (int64_t i = begin; i < end; ++i)
            out[i] = quant::quantize_value<Q>(half_to_float(in[i]), s, zp);
          break;
        }
        case DType::BF16: {
          const uint16_t* in = x.as<const uint16_t>();
          for (int64_t i = begin; i < end; ++i) {
            out[i] = quant::quantize_value<Q>(bfloat16_to_float(in[i]), s, zp);
          }
          break;
        }
        default: {
          const int32_t* in = x.as<const int32_t>();
          for (int64_t i = begin; i < end; ++i) {
            out[i] = quant::quantize_value<Q>(static_cast<float>(in[i]), s, zp);
          }
          break;
        }
      }
    });
  }

  int64_t axis_;
  std::optional<DType> output_type_;  // the output_dtype attribute, when given
};

}  // namespace

std::unique_ptr<OpKernel> make_quantize_linear(const NodeInfo& node) {
  if (node.num_inputs() < 2 || node.num_inputs() > 3 || !node.has_input(0) || !node.has_input(1)) {
    node.fail("expects x, y_scale and an optional y_zero_point");
  }
  if (node.get_int("block_size", 0) != 0)
    node.unsupported("QuantizeLinear: blocked quantization is not supported");
  const int64_t output_dtype = node.get_int("output_dtype", 0);
  std::optional<DType> output_type;
  if (output_dtype != 0) {
    if (!is_stored_dtype(static_cast<int32_t>(output_dtype)) ||
        !is_quantized_type(static_cast<DType>(output_dtype))) {
      node.unsupported("QuantizeLinear: output_dtype " +
                       std::string(onnx_type_name(static_cast<int32_t>(output_dtype))) + " is not supported");
    }
    output_type = static_cast<DType>(output_dtype);
  }
  return std::make_unique<QuantizeLinear>(node.get_int("axis", 1), output_type);
}

}  // namespace onemodel::ops

// Scale and zero-point handling shared by the quantization operators.
#include "graph/ops/quant/quant_common.h"

#include <string>

#include "core/half.h"

namespace onemodel::ops::quant {
namespace {

bool is_float_scale(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}

bool is_zero_point_type(DType t) {
  return t == DType::U8 || t == DType::I8 || t == DType::U16 || t == DType::I16 || t == DType::I32;
}

}  // namespace

void check_scale_and_zero_point(const InferContext& ctx, int64_t axis) {
  const Shape& x = ctx.input_shape(0);
  const Shape& scale = ctx.input_shape(1);
  if (!is_float_scale(ctx.input_dtype(1))) {
    ctx.node().unsupported(ctx.node().node().op_type + ": scale of element type " +
                           std::string(dtype_name(ctx.input_dtype(1))) + " is not supported");
  }
  if (scale.rank > 1) ctx.fail("the scale must be a scalar or 1-D, got shape " + scale.str());
  if (scale.count() != 1) {
    if (scale.rank != 1 || ctx.node().opset() < 13) {
      ctx.fail("the scale must hold one element before opset 13, got shape " + scale.str());
    }
    const int a = normalize_axis(axis, x.rank);
    if (a < 0) ctx.fail("axis " + std::to_string(axis) + " is out of range for shape " + x.str());
    if (scale[0] != x[a]) {
      ctx.fail("a per-axis scale of shape " + scale.str() + " does not match extent " + std::to_string(x[a]) +
               " of axis " + std::to_string(a) + " of the input " + x.str());
    }
  }
  if (!ctx.has_input(2)) return;
  if (!is_zero_point_type(ctx.input_dtype(2))) {
    ctx.node().unsupported(ctx.node().node().op_type + ": zero point of element type " +
                           std::string(dtype_name(ctx.input_dtype(2))) + " is not supported");
  }
  if (ctx.input_shape(2).count() != scale.count() || ctx.input_shape(2).rank > 1) {
    ctx.fail("the zero point's shape " + ctx.input_shape(2).str() + " differs from the scale's " +
             scale.str());
  }
}

ChannelLayout channel_layout(const Shape& x, int64_t axis, int64_t scale_count) {
  ChannelLayout layout;
  if (scale_count == 1) {
    layout.inner = x.count();
    return layout;
  }
  const int a = normalize_axis(axis, x.rank);
  layout.outer = x.count(0, a);
  layout.channels = x[a];
  layout.inner = x.count(a + 1, x.rank);
  return layout;
}

float scale_at(const TensorRef& scale, int64_t i) {
  switch (scale.dtype) {
    case DType::F16:
      return half_to_float(scale.as<const uint16_t>()[i]);
    case DType::BF16:
      return bfloat16_to_float(scale.as<const uint16_t>()[i]);
    default:
      return scale.as<const float>()[i];
  }
}

int32_t zero_point_at(const OpRun& run, size_t input, int64_t i) {
  if (!run.has_input(input)) return 0;
  const TensorRef& zp = run.inputs[input];
  switch (zp.dtype) {
    case DType::U8:
      return zp.as<const uint8_t>()[i];
    case DType::I8:
      return zp.as<const int8_t>()[i];
    case DType::U16:
      return zp.as<const uint16_t>()[i];
    case DType::I16:
      return zp.as<const int16_t>()[i];
    default:
      return zp.as<const int32_t>()[i];
  }
}

}  // namespace onemodel::ops::quant

#include "graph/ops/int8/int8_conv.h"

#include <string>

#include "graph/ops/conv/conv_attrs.h"
#include "graph/ops/int8/int8_common.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops::int8 {
namespace {

struct Inputs {
  size_t x, w, x_zero, w_zero;
  size_t x_scale = 0, w_scale = 0, y_scale = 0, y_zero = 0, bias = 0;
};
Inputs inputs_of(ConvKind kind) {
  if (kind == ConvKind::Integer) return {0, 1, 2, 3};
  return {0, 3, 2, 5, 1, 4, 6, 7, 8};
}

class Int8Conv final : public OpKernel {
 public:
  Int8Conv(ConvKind kind, ConvAttrs attrs) : kind_(kind), in_(inputs_of(kind)), attrs_(std::move(attrs)) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const char* name = kind_ == ConvKind::Integer ? "ConvInteger" : "QLinearConv";
    const DType tx = ctx.input_dtype(in_.x), tw = ctx.input_dtype(in_.w);
    if (!is_8bit(tx) || !is_8bit(tw)) {
      ctx.node().unsupported(std::string(name) + ": element types " + std::string(dtype_name(tx)) + " x " +
                             std::string(dtype_name(tw)) + " are not supported");
    }
    ConvShapes s;
    const std::string problem = conv_shapes(attrs_, ctx.input_shape(in_.x), ctx.input_shape(in_.w), s);
    if (!problem.empty()) ctx.fail(problem);
    if (s.spatial == 3) ctx.node().unsupported(std::string(name) + ": 3-D convolution is not supported");
    check_zero_point(ctx, in_.x_zero, tx, 1, "x_zero_point");
    DType y = DType::I32;
    if (kind_ == ConvKind::Integer) {
      check_zero_point(ctx, in_.w_zero, tw, 1, "w_zero_point");
    } else {
      check_zero_point(ctx, in_.w_zero, tw, s.out_channels, "w_zero_point");
      check_scale(ctx, in_.x_scale, 1, false, "x_scale");
      check_scale(ctx, in_.w_scale, s.out_channels, false, "w_scale");
      check_scale(ctx, in_.y_scale, 1, false, "y_scale");
      y = ctx.input_dtype(in_.y_zero);
      if (!is_8bit(y)) ctx.node().unsupported("QLinearConv: output type " + std::string(dtype_name(y)));
      check_zero_point(ctx, in_.y_zero, y, 1, "y_zero_point");
      check_int32_bias(ctx, in_.bias, s.out_channels, "B");
    }
    const std::string size_problem = shape_problem(s.output.span(), dtype_size(y));
    if (!size_problem.empty()) ctx.fail("output: " + size_problem);
    ctx.set_output(0, y, s.output);
  }

  std::shared_ptr<const void> prepare(PrepareContext& ctx) const override {
    const TensorRef* w = ctx.input_value(in_.w);
    if (w == nullptr || is_depthwise(w->shape)) return nullptr;
    const Shape& ws = w->shape;
    const int64_t n = ws[0] / attrs_.group, k = ws.count(1, ws.rank);
    return pack_int8_weight(ctx.kernels(), *w, attrs_.group, n * k, 1, k, k, n);
  }

  void run(const OpRun& run) const override {
    const TensorRef& x = run.inputs[in_.x];
    const TensorRef& w = run.inputs[in_.w];
    ConvShapes s;
    conv_shapes(attrs_, x.shape, w.shape, s);
    const ConvGeometry& g = s.geometry;
    const int64_t group = attrs_.group, cin = s.in_channels / group, cout = s.out_channels / group;
    const int64_t k = w.shape.count(1, w.shape.rank), pixels = g.out_size(), plane = g.in_size();
    if (s.batch == 0 || s.out_channels == 0 || pixels == 0) return;
    const Int8ConvA geometry = conv_a(g);
    if (is_depthwise(w.shape)) {
      run_depthwise(run, s, geometry);
      return;
    }
    Int8GemmArgs args;
    args.exact = run.exact;
    args.m = pixels, args.n = cout, args.k = k;
    if (is_pointwise(geometry, g.out[1])) {
      args.a_row = 1, args.a_col = plane;  // the input planes are A's columns: no im2col
    } else {
      args.conv = &geometry;
    }
    args.a_signed = x.dtype == DType::I8, args.b_signed = w.dtype == DType::I8;
    args.b_row = 1, args.b_col = k;
    args.c_row = 1, args.c_col = pixels;
    if (run.has_input(in_.x_zero)) args.a_zero = run.inputs[in_.x_zero].data;
    const bool w_zero_per_col = run.has_input(in_.w_zero) && run.inputs[in_.w_zero].shape.count() > 1;
    float* mult = nullptr;
    const int32_t* bias = nullptr;
    if (kind_ == ConvKind::QLinear) {
      args.epilogue = Int8Epilogue::Requantize;
      mult = run.scratch->allocate_array<float>(static_cast<size_t>(s.out_channels));
      args.mult_per_col = requantize_multipliers(run.inputs[in_.x_scale], run.inputs[in_.w_scale],
                                                 run.inputs[in_.y_scale], s.out_channels, mult);
      const TensorRef& y_zero = run.inputs[in_.y_zero];
      args.y_signed = y_zero.dtype == DType::I8;
      args.y_zero = zero_value(y_zero);
      if (run.has_input(in_.bias)) bias = run.inputs[in_.bias].as<const int32_t>();
    }
    const auto* packed = static_cast<const PackedInt8Weight*>(run.state);
    void* scratch = int8_scratch(run, args, packed != nullptr);
    const size_t y_size = dtype_size(run.outputs[0].dtype);
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t gi = 0; gi < group; ++gi) {
        const int64_t c0 = gi * cout;
        args.a = x.as<const uint8_t>() + (b * s.in_channels + gi * cin) * plane;
        args.b = w.as<const uint8_t>() + c0 * k;
        args.c =
            run.outputs[0].as<std::byte>() + static_cast<size_t>((b * s.out_channels + c0) * pixels) * y_size;
        if (run.has_input(in_.w_zero)) {
          args.b_zero = run.inputs[in_.w_zero].as<const uint8_t>() + (w_zero_per_col ? c0 : 0);
          args.b_zero_per_col = w_zero_per_col;
        }
        if (mult != nullptr) args.mult = mult + (args.mult_per_col ? c0 : 0);
        if (bias != nullptr) args.bias_i32 = bias + c0;
        run_int8_gemm(run, args, packed != nullptr ? &packed->groups[static_cast<size_t>(gi)] : nullptr,
                      scratch);
      }
    }
  }

 private:
  // One input channel per group and one output channel per group: the direct depthwise kernel's case.
  bool is_depthwise(const Shape& w) const { return w.rank >= 2 && w[1] == 1 && w[0] == attrs_.group; }

  // A 1x1 kernel at stride 1 whose output has the input's extent (no padding): output pixel i reads input
  // pixel i of every channel.
  static bool is_pointwise(const Int8ConvA& a, int64_t out_h) {
    return a.kernel_h == 1 && a.kernel_w == 1 && a.stride_h == 1 && a.stride_w == 1 && a.pad_top == 0 &&
           a.pad_left == 0 && out_h == a.in_h && a.out_w == a.in_w;
  }

  static Int8ConvA conv_a(const ConvGeometry& g) {
    Int8ConvA a;
    a.in_h = g.in[1], a.in_w = g.in[2], a.out_w = g.out[2];
    a.kernel_h = g.kernel[1], a.kernel_w = g.kernel[2];
    a.stride_h = g.stride[1], a.stride_w = g.stride[2];
    a.dilation_h = g.dilation[1], a.dilation_w = g.dilation[2];
    a.pad_top = g.pad[1], a.pad_left = g.pad[2];
    return a;
  }

  static int32_t zero_value(const TensorRef& zero) {
    return zero.dtype == DType::I8 ? *zero.as<const int8_t>() : *zero.as<const uint8_t>();
  }

  void run_depthwise(const OpRun& run, const ConvShapes& s, const Int8ConvA& geometry) const {
    const TensorRef& x = run.inputs[in_.x];
    const TensorRef& w = run.inputs[in_.w];
    Int8DepthwiseArgs args;
    args.exact = run.exact;
    args.planes = s.batch * s.out_channels, args.channels = s.out_channels, args.out_h = s.geometry.out[1];
    args.geometry = geometry;
    args.x = x.data, args.x_signed = x.dtype == DType::I8;
    if (run.has_input(in_.x_zero)) args.x_zero = run.inputs[in_.x_zero].data;
    args.w = w.data, args.w_signed = w.dtype == DType::I8;
    if (run.has_input(in_.w_zero)) {
      args.w_zero = run.inputs[in_.w_zero].data;
      args.w_zero_per_channel = run.inputs[in_.w_zero].shape.count() > 1;
    }
    args.y = run.outputs[0].data;
    if (kind_ == ConvKind::QLinear) {
      args.epilogue = Int8Epilogue::Requantize;
      float* mult = run.scratch->allocate_array<float>(static_cast<size_t>(s.out_channels));
      args.mult_per_channel = requantize_multipliers(run.inputs[in_.x_scale], run.inputs[in_.w_scale],
                                                     run.inputs[in_.y_scale], s.out_channels, mult);
      args.mult = mult;
      args.y_signed = run.inputs[in_.y_zero].dtype == DType::I8;
      args.y_zero = zero_value(run.inputs[in_.y_zero]);
      if (run.has_input(in_.bias)) args.bias_i32 = run.inputs[in_.bias].as<const int32_t>();
    }
    const size_t bytes = run.kernels->int8_depthwise_scratch_bytes(args, run.threads);
    run.kernels->int8_depthwise(args, bytes == 0 ? nullptr : run.scratch->allocate(bytes), run.threads);
  }

  ConvKind kind_;
  Inputs in_;
  ConvAttrs attrs_;
};

}  // namespace

std::unique_ptr<OpKernel> make_int8_conv(const NodeInfo& node, ConvKind kind) {
  if (kind == ConvKind::Integer)
    require_inputs(node, 2, 4);
  else
    require_inputs(node, 8, 9);
  return std::make_unique<Int8Conv>(kind, parse_conv_attrs(node, false));
}

}  // namespace onemodel::ops::int8

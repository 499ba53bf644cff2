#include "graph/ops/conv/conv_attrs.h"

#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// Python's floor division (ONNX's reference text uses it for the output_shape padding split).
int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Values within [min, 2^31 - 1], so no size computed from them can overflow.
void require_all(const NodeInfo& node, const std::vector<int64_t>& values, int64_t min, const char* name) {
  for (int64_t v : values) {
    if (v < min || v > kMaxElements)
      node.fail(std::string(name) + " must lie in [" + std::to_string(min) + ", 2^31 - 1]");
  }
}

// The attribute's value for spatial axis i, or `fallback` when the attribute is absent.
int64_t at(const std::vector<int64_t>& values, int i, int64_t fallback) {
  return values.empty() ? fallback : values[static_cast<size_t>(i)];
}

}  // namespace

ConvAttrs parse_conv_attrs(const NodeInfo& node, bool transpose) {
  ConvAttrs a;
  a.transpose = transpose;
  a.group = node.get_int("group", 1);
  if (a.group < 1) node.fail("group must be at least 1");
  const std::string pad = node.get_string("auto_pad", "NOTSET");
  if (pad == "NOTSET") {
    a.auto_pad = AutoPad::NotSet;
  } else if (pad == "SAME_UPPER") {
    a.auto_pad = AutoPad::SameUpper;
  } else if (pad == "SAME_LOWER") {
    a.auto_pad = AutoPad::SameLower;
  } else if (pad == "VALID") {
    a.auto_pad = AutoPad::Valid;
  } else {
    node.fail("auto_pad '" + pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  a.kernel_shape = node.get_ints("kernel_shape");
  a.strides = node.get_ints("strides");
  a.dilations = node.get_ints("dilations");
  a.pads = node.get_ints("pads");
  require_all(node, a.kernel_shape, 1, "kernel_shape");
  require_all(node, a.strides, 1, "strides");
  require_all(node, a.dilations, 1, "dilations");
  if (transpose) {
    a.output_padding = node.get_ints("output_padding");
    a.output_shape = node.get_ints("output_shape");
    require_all(node, a.output_padding, 0, "output_padding");
    require_all(node, a.output_shape, 0, "output_shape");
  }
  require_all(node, a.pads, 0, "pads");
  return a;
}

std::string conv_shapes(const ConvAttrs& a, const Shape& x, const Shape& w, ConvShapes& out) {
  if (x.rank < 3 || x.rank > 5) return "input must have 1 to 3 spatial axes, not shape " + x.str();
  if (w.rank != x.rank) return "weights " + w.str() + " do not match input " + x.str();
  const int spatial = x.rank - 2;
  const auto sized = [&](const std::vector<int64_t>& v, size_t n) { return v.empty() || v.size() == n; };
  const size_t ns = static_cast<size_t>(spatial);
  if (!sized(a.kernel_shape, ns) || !sized(a.strides, ns) || !sized(a.dilations, ns) ||
      !sized(a.pads, 2 * ns) || !sized(a.output_padding, ns)) {
    return "an attribute's length does not match the " + std::to_string(spatial) + " spatial axes";
  }
  if (!a.output_shape.empty() && a.output_shape.size() != ns && a.output_shape.size() != ns + 2) {
    return "output_shape's length does not match the " + std::to_string(spatial) + " spatial axes";
  }
  const int64_t channels = x[1], group = a.group;
  out.spatial = spatial;
  out.batch = x[0];
  out.in_channels = channels;
  if (a.transpose) {
    if (w[0] != channels || channels % group != 0)
      return "weights " + w.str() + " do not match input " + x.str() + " with group " + std::to_string(group);
    out.out_channels = w[1] * group;
  } else {
    if (w[1] * group != channels || w[0] % group != 0)
      return "weights " + w.str() + " do not match input " + x.str() + " with group " + std::to_string(group);
    out.out_channels = w[0];
  }
  ConvGeometry g;
  out.output.rank = x.rank;
  out.output[0] = out.batch;
  out.output[1] = out.out_channels;
  for (int i = 0; i < spatial; ++i) {
    const int axis = kConvAxes - spatial + i;
    const int64_t n = x[2 + i], k = w[2 + i];
    if (k < 1) return "weights " + w.str() + " have an empty kernel";
    if (!a.kernel_shape.empty() && a.kernel_shape[static_cast<size_t>(i)] != k)
      return "kernel_shape does not match weights " + w.str();
    const int64_t s = at(a.strides, i, 1), d = at(a.dilations, i, 1);
    const int64_t e = d * (k - 1) + 1;
    const int64_t before = at(a.pads, i, 0), after = at(a.pads, spatial + i, 0);
    g.kernel[axis] = k;
    g.stride[axis] = s;
    g.dilation[axis] = d;
    g.in[axis] = n;
    int64_t size = 0, pad = 0;
    if (!a.transpose) {
      if (a.auto_pad == AutoPad::SameUpper || a.auto_pad == AutoPad::SameLower) {
        size = (n + s - 1) / s;
        int64_t total = (size - 1) * s + e - n;
        if (total < 0) total = 0;
        pad = a.auto_pad == AutoPad::SameUpper ? total / 2 : total - total / 2;
      } else {
        const int64_t b = a.auto_pad == AutoPad::Valid ? 0 : before,
                      c = a.auto_pad == AutoPad::Valid ? 0 : after;
        if (n + b + c < e) return "the kernel window does not fit the padded input " + x.str();
        size = (n + b + c - e) / s + 1;
        pad = b;
      }
    } else {
      // Each term is below 2^62 (factors below 2^31); beyond 2^33 no padding brings the size back under 2^31.
      if (n > 0 && (s * (n - 1) > (int64_t{1} << 33) || e > (int64_t{1} << 33)))
        return "the output would be too large";
      const int64_t natural = s * (n - 1) + at(a.output_padding, i, 0) + e;
      if (!a.output_shape.empty()) {
        size = a.output_shape[a.output_shape.size() - ns + static_cast<size_t>(i)];
        const int64_t total = natural - size;
        pad = a.auto_pad == AutoPad::SameUpper ? floor_div(total, 2) : total - floor_div(total, 2);
      } else if (a.auto_pad == AutoPad::SameUpper || a.auto_pad == AutoPad::SameLower) {
        int64_t total = natural - n * s;
        if (total < 0) total = 0;
        size = natural - total;
        pad = a.auto_pad == AutoPad::SameUpper ? total / 2 : total - total / 2;
      } else if (a.auto_pad == AutoPad::Valid) {
        size = natural;
      } else {
        size = natural - before - after;
        pad = before;
      }
      if (size < 0) return "the output would have a negative extent";
    }
    g.out[axis] = size;
    g.pad[axis] = pad;
    out.output[2 + i] = size;
  }
  out.geometry = g;
  return {};
}

void infer_conv(InferContext& ctx, const ConvAttrs& attrs, std::string_view op) {
  for (size_t i = 0; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    if (ctx.input_dtype(i) != DType::F32)
      ctx.node().unsupported(std::string(op) + ": element type " +
                             std::string(dtype_name(ctx.input_dtype(i))) + " is not supported");
  }
  if (ctx.input_shape(0).rank > 2 + kConvAxes)
    ctx.node().unsupported(std::string(op) + ": more than 3 spatial axes are not supported");
  ConvShapes s;
  const std::string problem = conv_shapes(attrs, ctx.input_shape(0), ctx.input_shape(1), s);
  if (!problem.empty()) ctx.fail(problem);
  if (ctx.has_input(2)) {
    const Shape& b = ctx.input_shape(2);
    if (b.rank != 1 || b[0] != s.out_channels)
      ctx.fail("bias " + b.str() + " must have one element per output channel (" +
               std::to_string(s.out_channels) + ")");
  }
  check_dims(ctx, s.output.span(), sizeof(float), "output");
  ctx.set_output(0, DType::F32, s.output);
}

void add_bias(const OpRun& run, const ConvShapes& s) {
  const float* bias = run.inputs[2].as<const float>();
  float* y = run.outputs[0].as<float>();
  const int64_t plane = s.geometry.out_size();
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.out_channels; ++c, y += plane) {
      add_bias_row(*run.kernels, y, plane, bias[c], run.exact);
    }
  }
}

void add_bias_row(const KernelTable& kernels, float* y, int64_t count, float bias, bool exact) {
  kernels.binary(BinaryFn::Add, exact, y, 1, &bias, 0, y, static_cast<size_t>(count));
}

}  // namespace onemodel::ops

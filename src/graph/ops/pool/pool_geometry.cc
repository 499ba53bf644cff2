#include "graph/ops/pool/pool_geometry.h"

#include <string>
#include <vector>

#include "graph/ops/elementwise/common.h"

namespace onemodel::ops {

PoolAttributes::PoolAttributes(const NodeInfo& node, bool dilations) {
  const std::string op = node.node().op_type;
  const std::vector<int64_t> kernel = node.get_ints("kernel_shape");
  if (kernel.empty()) node.fail("kernel_shape is required");
  if (kernel.size() > kPoolAxes) {
    node.unsupported(op + ": " + std::to_string(kernel.size()) + " spatial axes are not supported");
  }
  spatial_ = static_cast<int>(kernel.size());
  const size_t n = kernel.size();
  const std::vector<int64_t> strides = node.get_ints("strides", std::vector<int64_t>(n, 1));
  const std::vector<int64_t> dil =
      dilations ? node.get_ints("dilations", std::vector<int64_t>(n, 1)) : std::vector<int64_t>(n, 1);
  const std::vector<int64_t> pads = node.get_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (strides.size() != n) node.fail("strides must have one value per spatial axis");
  if (dil.size() != n) node.fail("dilations must have one value per spatial axis");
  if (pads.size() != 2 * n) node.fail("pads must have two values per spatial axis");
  // Axis i of the attributes is lifted axis kPoolAxes - n + i; the leading axes keep extent-1 windows.
  kernel_.fill(1);
  stride_.fill(1);
  dilation_.fill(1);
  for (size_t i = 0; i < n; ++i) {
    const size_t a = kPoolAxes - n + i;
    kernel_[a] = kernel[i];
    stride_[a] = strides[i];
    dilation_[a] = dil[i];
    pad_begin_[a] = pads[i];
    pad_end_[a] = pads[n + i];
    // Bounds keep every product below 2^62 for extents within the tensor limit.
    if (kernel[i] < 1 || kernel[i] > kMaxElements) node.fail("kernel_shape values must be positive");
    if (strides[i] < 1 || strides[i] > kMaxElements) node.fail("strides must be positive");
    if (dil[i] < 1 || dil[i] > kMaxElements) node.fail("dilations must be positive");
    if (pads[i] < 0 || pads[n + i] < 0 || pads[i] > kMaxElements || pads[n + i] > kMaxElements) {
      node.fail("pads must not be negative");
    }
  }
  const std::string auto_pad = node.get_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    auto_pad_ = AutoPad::NotSet;
  } else if (auto_pad == "SAME_UPPER") {
    auto_pad_ = AutoPad::SameUpper;
  } else if (auto_pad == "SAME_LOWER") {
    auto_pad_ = AutoPad::SameLower;
  } else if (auto_pad == "VALID") {
    auto_pad_ = AutoPad::Valid;
  } else {
    node.fail("auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  }
  const int64_t ceil_mode = node.get_int("ceil_mode", 0);
  if (ceil_mode != 0 && ceil_mode != 1) node.fail("ceil_mode must be 0 or 1");
  ceil_mode_ = ceil_mode == 1;
}

const char* PoolAttributes::build(const Shape& in, PoolGeometry& g) const {
  if (in.rank != spatial_ + 2) return "the input rank does not match kernel_shape";
  g.planes = in[0] * in[1];
  for (int a = 0; a < kPoolAxes; ++a) {
    PoolAxis& x = g.axes[static_cast<size_t>(a)];
    const size_t i = static_cast<size_t>(a);
    const int lifted = a - (kPoolAxes - spatial_);
    x = PoolAxis{};
    if (lifted < 0) continue;
    x.in = in[lifted + 2];
    x.kernel = kernel_[i];
    x.stride = stride_[i];
    x.dilation = dilation_[i];
    const int64_t reach = x.dilation * (x.kernel - 1) + 1;
    if (auto_pad_ == AutoPad::SameUpper || auto_pad_ == AutoPad::SameLower) {
      x.out = (x.in + x.stride - 1) / x.stride;
      const int64_t total = std::max<int64_t>(0, (x.out - 1) * x.stride + reach - x.in);
      const int64_t small = total / 2;
      x.pad_begin = auto_pad_ == AutoPad::SameUpper ? small : total - small;
      x.pad_end = total - x.pad_begin;
      continue;
    }
    if (auto_pad_ == AutoPad::NotSet) {
      x.pad_begin = pad_begin_[i];
      x.pad_end = pad_end_[i];
    }
    const int64_t span = x.in + x.pad_begin + x.pad_end - reach;
    if (span < 0) return "the pooling window is larger than the padded input";
    x.out = (ceil_mode_ ? (span + x.stride - 1) / x.stride : span / x.stride) + 1;
    // A last window that would start inside the end padding is dropped.
    if (ceil_mode_ && (x.out - 1) * x.stride >= x.in + x.pad_begin) --x.out;
  }
  return nullptr;
}

Shape PoolAttributes::output_shape(const InferContext& ctx, const Shape& in) const {
  PoolGeometry g;
  if (const char* problem = build(in, g)) ctx.fail(problem);
  Shape out = in;
  for (int a = 0; a < spatial_; ++a) out[a + 2] = g.axes[static_cast<size_t>(kPoolAxes - spatial_ + a)].out;
  if (const std::string p = shape_problem(out.span(), 8); !p.empty()) ctx.fail("output " + p);
  return out;
}

PoolGeometry PoolAttributes::geometry(const Shape& in) const {
  PoolGeometry g;
  build(in, g);
  return g;
}

void FloatWindowPool::infer(InferContext& ctx) const {
  if (ctx.input_dtype(0) != DType::F32) unsupported_type(ctx, ctx.input_dtype(0));
  ctx.set_output(0, DType::F32, attributes_.output_shape(ctx, ctx.input_shape(0)));
}

void infer_global_pool(InferContext& ctx) {
  if (ctx.input_dtype(0) != DType::F32) unsupported_type(ctx, ctx.input_dtype(0));
  const Shape& in = ctx.input_shape(0);
  if (in.rank < 2) ctx.fail("the input needs a batch and a channel axis");
  Shape out = in;
  for (int a = 2; a < in.rank; ++a) out[a] = 1;
  ctx.set_output(0, DType::F32, out);
}

}  // namespace onemodel::ops

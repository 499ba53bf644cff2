// Attributes and shape rules shared by Conv and ConvTranspose (ops-conv.md "Output sizes"): parsed once by
// the factory, turned into a ConvGeometry with one to three spatial axes lifted to three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.h"
#include "graph/op.h"
#include "graph/ops/fused_epilogue.h"
#include "kernels/conv/conv_geometry.h"

namespace onemodel::ops {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

struct ConvAttrs {
  bool transpose = false;
  int64_t group = 1;
  AutoPad auto_pad = AutoPad::NotSet;
  // Empty when the attribute is absent; lengths are checked against the spatial rank by conv_shapes.
  std::vector<int64_t> kernel_shape, strides, dilations, pads, output_padding, output_shape;
};

// Reads and checks the node's attributes (values only); fails naming the node.
ConvAttrs parse_conv_attrs(const NodeInfo& node, bool transpose);

// The shapes of one call.
struct ConvShapes {
  ConvGeometry geometry;
  int spatial = 0;  // 1, 2 or 3
  int64_t batch = 0, in_channels = 0, out_channels = 0;
  Shape output;
};

// Checks input X and weights W against the attributes and derives the output; returns the problem, or an
// empty string when the shapes are valid (no allocation then, so run() may call it).
std::string conv_shapes(const ConvAttrs& attrs, const Shape& x, const Shape& w, ConvShapes& out);

// Checks types and shapes of inputs X, W and optional bias B and sets output 0 (float32 only).
void infer_conv(InferContext& ctx, const ConvAttrs& attrs, std::string_view op);

// y[n][c][...] = y + bias[c] over the output, one rounded addition per element; exact: NaN -> 0x7FC00000.
void add_bias(const OpRun& run, const ConvShapes& s);
// The same addition over `count` outputs of one channel.
void add_bias_row(const KernelTable& kernels, float* y, int64_t count, float bias, bool exact);

}  // namespace onemodel::ops

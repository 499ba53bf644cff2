// ConvInteger and QLinearConv (int8.md "Convolution") share one kernel class: 1-D and 2-D NCHW convolutions
// with groups, strides, dilations, pads and auto_pad (ops-conv.md), one int8 product per image and group with
// im2col fused into the packing of A (the output pixels are A's rows, the group's output channels B's
// columns, written straight into NCHW through the output strides), and the weights packed per group once per
// plan when constant. A depthwise convolution (one input and one output channel per group) runs the direct
// depthwise kernel instead, which needs no packing.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops::int8 {

enum class ConvKind {
  Integer,  // ConvInteger: x, w, x_zero_point?, w_zero_point? (per tensor) -> int32
  QLinear,  // QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B? (int32) -> 8-bit
};

std::unique_ptr<OpKernel> make_int8_conv(const NodeInfo& node, ConvKind kind);

}  // namespace onemodel::ops::int8

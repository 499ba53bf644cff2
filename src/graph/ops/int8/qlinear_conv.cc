// QLinearConv (int8.md "Operators"): the ConvInteger sum plus the optional int32 bias B, requantized with
// mult = (x_scale * w_scale) / y_scale per tensor or per output channel; w_zero_point per tensor or per
// output channel.
#include "graph/ops/int8/factories.h"
#include "graph/ops/int8/int8_conv.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_qlinear_conv(const NodeInfo& node) {
  return int8::make_int8_conv(node, int8::ConvKind::QLinear);
}

}  // namespace onemodel::ops

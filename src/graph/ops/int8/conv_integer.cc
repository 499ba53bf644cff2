// ConvInteger (int8.md "Operators"): int32 = the convolution of (x - x_zero_point) with (w - w_zero_point),
// uint8 or int8 in any mix; the weights' zero point is per tensor.
#include "graph/ops/int8/factories.h"
#include "graph/ops/int8/int8_conv.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_conv_integer(const NodeInfo& node) {
  return int8::make_int8_conv(node, int8::ConvKind::Integer);
}

}  // namespace onemodel::ops

// The spatial geometry of one convolution, with one, two or three spatial axes lifted to three (missing
// leading axes have extent 1, kernel 1, stride 1, dilation 1, no padding). Shared by the im2col/col2im
// lowering, the depthwise kernel's caller and the Conv/ConvTranspose operators.
#pragma once

#include <cstdint>

namespace onemodel {

inline constexpr int kConvAxes = 3;

struct ConvGeometry {
  // Per axis (depth, height, width). For Conv `in` is the input and `out` the output; for ConvTranspose `in`
  // is the operator's input (the im2col side) and `out` its output, with the same tap relation: out position
  // o and input position i meet at tap t when o*stride - pad + t*dilation == i (Conv), or i*stride - pad +
  // t*dilation == o (ConvTranspose).
  int64_t in[kConvAxes] = {1, 1, 1};
  int64_t out[kConvAxes] = {1, 1, 1};
  int64_t kernel[kConvAxes] = {1, 1, 1};
  int64_t stride[kConvAxes] = {1, 1, 1};
  int64_t dilation[kConvAxes] = {1, 1, 1};
  int64_t pad[kConvAxes] = {0, 0, 0};  // before the data

  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t taps() const { return kernel[0] * kernel[1] * kernel[2]; }
};

}  // namespace onemodel

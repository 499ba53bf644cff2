// Factories of Conv and ConvTranspose, joined into ops::conv_defs() by conv_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_conv(const NodeInfo& node);            // conv.cc
std::unique_ptr<OpKernel> make_conv_transpose(const NodeInfo& node);  // conv_transpose.cc

}  // namespace onemodel::ops

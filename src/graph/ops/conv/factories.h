// Factories of Conv and ConvTranspose, joined into ops::conv_defs() by conv_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_conv(const NodeInfo& node);            // conv.cc
std::unique_ptr<OpKernel> make_conv_transpose(const NodeInfo& node);  // conv_transpose.cc

class FusedEpilogue;
// A Conv whose bias and `epilogue` run on each finished block of output rows (conv.cc; graph passes).
std::unique_ptr<OpKernel> make_conv_with_epilogue(const NodeInfo& node,
                                                  std::unique_ptr<const FusedEpilogue> epilogue);
// True for a Conv kernel that has no epilogue yet (a pass may give it one).
bool is_conv_without_epilogue(const OpKernel& kernel);

}  // namespace onemodel::ops

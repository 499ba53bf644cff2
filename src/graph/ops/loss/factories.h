// Factories of the loss operators, joined into ops::loss_defs() by loss_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_nll_loss(const NodeInfo& node);                    // nll_loss.cc
std::unique_ptr<OpKernel> make_softmax_cross_entropy_loss(const NodeInfo& node);  // softmax_cross_entropy.cc

}  // namespace onemodel::ops

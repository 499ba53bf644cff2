// Factories of the training-domain optimizers, joined into ops::training_defs() by training_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_adagrad(const NodeInfo& node);   // optimizers.cc
std::unique_ptr<OpKernel> make_momentum(const NodeInfo& node);  // optimizers.cc
std::unique_ptr<OpKernel> make_adam(const NodeInfo& node);      // optimizers.cc

}  // namespace onemodel::ops

// Factories of the normalisation operators, joined into ops::norm_defs() by norm_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_softmax(const NodeInfo& node);  // softmax.cc

}  // namespace onemodel::ops

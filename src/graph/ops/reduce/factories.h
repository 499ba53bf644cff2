// Factories of the reductions, joined into ops::reduce_defs() by reduce_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_reduce_max(const NodeInfo& node);  // reduce_max.cc

}  // namespace onemodel::ops

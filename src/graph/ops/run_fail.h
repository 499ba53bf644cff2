// Run-time failures of operator kernels: a value read from a tensor (an index, a count, a shape) that the
// node cannot serve is the caller's input error, reported with the node's name.
#pragma once

#include <string>

#include "graph/op.h"

namespace onemodel::ops {

// Throws SessionError(InvalidInput) naming the run's node.
[[noreturn]] void run_fail(const OpRun& run, const std::string& message);

}  // namespace onemodel::ops

// One row of LogSoftmax, shared with SoftmaxCrossEntropyLoss (src/graph/ops/loss/).
#pragma once

#include <cstdint>

#include "graph/op.h"

namespace onemodel::ops {

// y = d - log(canonical sum of exp(d)) with d = x - max(x) over the n elements of the row; a row holding NaN
// or +inf, or only -inf, is all canonical NaN. The exponential follows run.exact, the log is always the exact
// one. x and y may be the same memory.
void log_softmax_row(const OpRun& run, const float* x, float* y, int64_t n);

}  // namespace onemodel::ops

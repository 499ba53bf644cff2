// The negative log-likelihood step shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. The input
// is [N, C, d1, ..., dk] (log-probabilities), the target [N, d1, ..., dk] holds class indices and the
// optional weight [C] one weight per class. At every target position p with class t:
//   w_p = weight[t] (1 without weights), l_p = w_p * -input[n, t, d]
// and a position whose class equals ignore_index has w_p = 0 and l_p = +0 (its class is not checked; any
// other class outside [0, C) is an error). The reductions:
//   none: the l_p in the target's shape;  sum: S = sum of l_p;
//   mean: S / (sum of w_p) -- with neither weights nor ignore_index that is S / (N * d1 * ... * dk).
// Exact by construction: one unfused multiply per position, sums in the canonical order of
// reduce/canonical_sum.h over positions in row-major order, one division; NaN results are canonical. 0 / 0
// (every position ignored) is NaN.
#pragma once

#include <cstdint>
#include <optional>

#include "graph/op.h"

namespace onemodel::ops {

enum class LossReduction { None, Sum, Mean };

struct NllOptions {
  LossReduction reduction = LossReduction::Mean;
  std::optional<int64_t> ignore_index;
};

// The `reduction` and `ignore_index` attributes; fails naming the node on an unknown reduction.
NllOptions nll_options(const NodeInfo& node);

// Checks input 0 (the scores or log-probabilities, of `dtype`), 1 (the target) and the optional 2 (the
// weights), and states output 0.
void infer_nll(InferContext& ctx, const NllOptions& options, DType dtype);

// Computes output 0 from `input` ([N, C, ...], float or double like the output) and the run's inputs 1 and 2.
void run_nll(const OpRun& run, const NllOptions& options, const TensorRef& input);

}  // namespace onemodel::ops

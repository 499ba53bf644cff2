// Fused element-wise loops of the elementwise-chain graph pass (docs/graph-passes.md), one table per kernel
// path like KernelTable's entries, in a table of their own so that adding them left kernels/kernel_table.h
// untouched. Each computes, per element, exactly the IEEE operations of the operators it replaces, in their
// order and with their operand order, keeping the intermediate values in registers.
#pragma once

#include <cstddef>

#include "kernels/kernel_table.h"

namespace onemodel {

struct ChainKernels {
  // y[i] = hard-swish of x[i] as PaddleOCR's exports write it out: t = clip(x + c, lo, hi) with Clip's
  // selects, then x * t / d (div_last) or x * (t / d), every operation rounded. y may be x. Exact: a NaN
  // result is 0x7FC00000 (an intermediate NaN always reaches the result, so this equals the operators' own
  // rewrites). Add and Mul commute bit for bit except for which NaN payload survives, which fast mode leaves
  // to the compiler (it may swap the operands of any of these loops) and exact mode canonicalises.
  void (*hard_swish)(bool div_last, bool exact, const float* x, float c, float lo, float hi, float d,
                     float* y, size_t n);
};

// The table of a path this build compiled (the session's `kernels->path`); nullptr otherwise.
const ChainKernels* chain_kernels(KernelPath path);

}  // namespace onemodel

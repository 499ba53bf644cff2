// LinearOp (graph-passes.md "linear-pack-fuse"): Y = act(A * B + bias) with a constant float32 matrix B
// packed once per session, the bias addition and the activation run on each finished tile of the product
// while it is in cache. Made only by the linear-pack-fuse pass, never looked up in the op table; the node
// keeps the NodeInfo of the MatMul or Gemm it replaces.
#pragma once

#include <cstddef>
#include <memory>

#include "graph/op.h"
#include "graph/ops/fused_epilogue.h"

namespace onemodel::ops {

struct LinearForm {
  bool gemm = false;        // from a Gemm: A must be a matrix; else MatMul's rules, A's leading axes are rows
  bool trans_b = false;     // Gemm's transB: B is stored n x k
  bool bias_first = false;  // the bias is the first operand of its addition, as in Add(bias, Y)
};

// The node's inputs: A, an omitted input (B is the kernel's own), the bias (a constant float32 tensor of n
// elements whose shape broadcasts along A's rows, or omitted), then the epilogue's own inputs from this index
// on.
inline constexpr size_t kLinearInputs = 3;

// `b` is the constant float32 matrix (n x k with transB). The kernel keeps it only until it is packed for the
// session's kernel path, so the packed copy replaces it. `epilogue` may be null (no activation).
std::unique_ptr<OpKernel> make_linear(const LinearForm& form, ConstTensor b,
                                      std::unique_ptr<const FusedEpilogue> epilogue);

}  // namespace onemodel::ops

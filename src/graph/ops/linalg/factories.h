// Factories of MatMul, Gemm, Det and Einsum, joined into ops::linalg_defs() by linalg_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_matmul(const NodeInfo& node);  // matmul.cc
std::unique_ptr<OpKernel> make_gemm(const NodeInfo& node);    // gemm.cc
std::unique_ptr<OpKernel> make_det(const NodeInfo& node);     // det.cc
std::unique_ptr<OpKernel> make_einsum(const NodeInfo& node);  // einsum.cc

}  // namespace onemodel::ops

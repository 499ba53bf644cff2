// The integer matrix products MatMulInteger, QLinearMatMul and MatMulIntegerToFloat share one kernel class:
// numpy batching and broadcasting as MatMul (1-D operands gain and lose a unit axis), one call of the int8
// product kernel per pair of matrices, and a constant unbatched B packed once per plan. The operators differ
// only in where their inputs are and which epilogue they ask for.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops::int8 {

enum class MatMulKind {
  Integer,  // MatMulInteger: A, B, a_zero_point?, b_zero_point? -> int32
  QLinear,  // QLinearMatMul: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp, [bias int32] -> 8-bit
  ToFloat,  // MatMulIntegerToFloat: A, B, scale, a_zero_point?, b_zero_point?, bias? -> float32
};

std::unique_ptr<OpKernel> make_int8_matmul(const NodeInfo& node, MatMulKind kind);

}  // namespace onemodel::ops::int8

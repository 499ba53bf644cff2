// MatMulInteger (int8.md "Operators"): int32 = sum (A - a_zero_point)(B - b_zero_point), uint8 or int8 in any
// mix; a_zero_point per tensor or per row of A, b_zero_point per tensor or per column of B.
#include "graph/ops/int8/factories.h"
#include "graph/ops/int8/int8_matmul.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_matmul_integer(const NodeInfo& node) {
  return int8::make_int8_matmul(node, int8::MatMulKind::Integer);
}

}  // namespace onemodel::ops

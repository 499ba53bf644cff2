// MatMulIntegerToFloat (internal, domain com.microsoft; written by the matmul-integer-fusion pass): inputs
// A, B, scale, a_zero_point?, b_zero_point?, bias?. It is MatMulInteger -> Cast(float) -> Mul(scale) ->
// Add(bias) in one kernel with the same float32 operations in the same order: float(acc) * scale (+ bias).
// scale and bias hold one value or one per column of the product (laid along the last axis), and have no
// more axes than the product.
#include "graph/ops/int8/factories.h"
#include "graph/ops/int8/int8_matmul.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_matmul_integer_to_float(const NodeInfo& node) {
  return int8::make_int8_matmul(node, int8::MatMulKind::ToFloat);
}

}  // namespace onemodel::ops

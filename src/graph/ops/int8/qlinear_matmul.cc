// QLinearMatMul (int8.md "Operators"), opsets 10 and 21: the MatMulInteger product requantized with
// mult = (a_scale * b_scale) / y_scale per tensor or per column of B. A ninth input, an int32 bias per column
// added to the product before the float conversion, is our extension (written by the qdq pass; not ONNX).
// Opset 21 scales may also be float16 or bfloat16 (widened exactly).
#include "graph/ops/int8/factories.h"
#include "graph/ops/int8/int8_matmul.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_qlinear_matmul(const NodeInfo& node) {
  return int8::make_int8_matmul(node, int8::MatMulKind::QLinear);
}

}  // namespace onemodel::ops

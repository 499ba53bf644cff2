// The int8 family's operator rows (int8.md "Operators").
#include "graph/ops/families.h"
#include "graph/ops/int8/factories.h"

namespace onemodel::ops {

std::span<const OpDef> int8_defs() {
  static const OpDef defs[] = {
      {"MatMulInteger", 10, kLatestOpset, make_matmul_integer},
      {"QLinearMatMul", 10, kLatestOpset, make_qlinear_matmul},
      {"ConvInteger", 10, kLatestOpset, make_conv_integer},
      {"QLinearConv", 10, kLatestOpset, make_qlinear_conv},
      {"MatMulIntegerToFloat", 1, kLatestOpset, make_matmul_integer_to_float, "com.microsoft"},
  };
  return defs;
}

}  // namespace onemodel::ops

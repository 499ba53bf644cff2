// The quantization family's operator rows (int8.md "Operators"). QuantizeLinear and DequantizeLinear are one
// kernel each across their opsets: the later versions only add types (float16/bfloat16 scales, 16-bit
// integers), the axis attribute (13) and attributes for blocked or float8 forms that are refused or ignored.
#include "graph/ops/families.h"
#include "graph/ops/quant/factories.h"

namespace onemodel::ops {

std::span<const OpDef> quant_defs() {
  static const OpDef defs[] = {
      {"QuantizeLinear", 10, kLatestOpset, make_quantize_linear},
      {"DequantizeLinear", 10, kLatestOpset, make_dequantize_linear},
      {"DynamicQuantizeLinear", 11, kLatestOpset, make_dynamic_quantize_linear},
  };
  return defs;
}

}  // namespace onemodel::ops

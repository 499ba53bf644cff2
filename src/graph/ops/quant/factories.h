// Factories of the quantization operators, joined into ops::quant_defs() by quant_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_quantize_linear(const NodeInfo& node);          // quantize_linear.cc
std::unique_ptr<OpKernel> make_dequantize_linear(const NodeInfo& node);        // dequantize_linear.cc
std::unique_ptr<OpKernel> make_dynamic_quantize_linear(const NodeInfo& node);  // dynamic_quantize_linear.cc

}  // namespace onemodel::ops

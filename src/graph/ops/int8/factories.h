// Factories of the int8 product operators, joined into ops::int8_defs() by int8_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_matmul_integer(const NodeInfo& node);           // matmul_integer.cc
std::unique_ptr<OpKernel> make_qlinear_matmul(const NodeInfo& node);           // qlinear_matmul.cc
std::unique_ptr<OpKernel> make_matmul_integer_to_float(const NodeInfo& node);  // matmul_integer_to_float.cc
std::unique_ptr<OpKernel> make_conv_integer(const NodeInfo& node);             // conv_integer.cc
std::unique_ptr<OpKernel> make_qlinear_conv(const NodeInfo& node);             // qlinear_conv.cc

}  // namespace onemodel::ops

// Factories of the element-wise operators, joined into ops::elementwise_defs() by elementwise_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_add(const NodeInfo& node);      // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_sub(const NodeInfo& node);      // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_mul(const NodeInfo& node);      // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_div(const NodeInfo& node);      // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_relu(const NodeInfo& node);     // relu.cc
std::unique_ptr<OpKernel> make_exp(const NodeInfo& node);      // unary_math.cc
std::unique_ptr<OpKernel> make_log(const NodeInfo& node);      // unary_math.cc
std::unique_ptr<OpKernel> make_tanh(const NodeInfo& node);     // unary_math.cc
std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo& node);  // unary_math.cc
std::unique_ptr<OpKernel> make_erf(const NodeInfo& node);      // unary_math.cc
std::unique_ptr<OpKernel> make_gelu(const NodeInfo& node);     // unary_math.cc
std::unique_ptr<OpKernel> make_cast(const NodeInfo& node);     // cast.cc
std::unique_ptr<OpKernel> make_sin(const NodeInfo& node);      // trig.cc
std::unique_ptr<OpKernel> make_cos(const NodeInfo& node);      // trig.cc

}  // namespace onemodel::ops

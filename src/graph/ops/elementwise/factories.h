// Factories of the element-wise operators, joined into ops::elementwise_defs() by elementwise_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_add(const NodeInfo& node);               // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_sub(const NodeInfo& node);               // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_mul(const NodeInfo& node);               // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_div(const NodeInfo& node);               // binary_arithmetic.cc
std::unique_ptr<OpKernel> make_relu(const NodeInfo& node);              // relu.cc
std::unique_ptr<OpKernel> make_exp(const NodeInfo& node);               // unary_math.cc
std::unique_ptr<OpKernel> make_log(const NodeInfo& node);               // unary_math.cc
std::unique_ptr<OpKernel> make_tanh(const NodeInfo& node);              // unary_math.cc
std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo& node);           // unary_math.cc
std::unique_ptr<OpKernel> make_erf(const NodeInfo& node);               // unary_math.cc
std::unique_ptr<OpKernel> make_gelu(const NodeInfo& node);              // unary_math.cc
std::unique_ptr<OpKernel> make_cast(const NodeInfo& node);              // cast.cc
std::unique_ptr<OpKernel> make_cast_like(const NodeInfo& node);         // cast.cc
std::unique_ptr<OpKernel> make_where(const NodeInfo& node);             // where.cc
std::unique_ptr<OpKernel> make_equal(const NodeInfo& node);             // comparison.cc
std::unique_ptr<OpKernel> make_less(const NodeInfo& node);              // comparison.cc
std::unique_ptr<OpKernel> make_greater(const NodeInfo& node);           // comparison.cc
std::unique_ptr<OpKernel> make_less_or_equal(const NodeInfo& node);     // comparison.cc
std::unique_ptr<OpKernel> make_greater_or_equal(const NodeInfo& node);  // comparison.cc
std::unique_ptr<OpKernel> make_not(const NodeInfo& node);               // logical.cc
std::unique_ptr<OpKernel> make_and(const NodeInfo& node);               // logical.cc
std::unique_ptr<OpKernel> make_or(const NodeInfo& node);                // logical.cc
std::unique_ptr<OpKernel> make_xor(const NodeInfo& node);               // logical.cc
std::unique_ptr<OpKernel> make_neg(const NodeInfo& node);               // unary_simple.cc
std::unique_ptr<OpKernel> make_abs(const NodeInfo& node);               // unary_simple.cc
std::unique_ptr<OpKernel> make_sign(const NodeInfo& node);              // unary_simple.cc
std::unique_ptr<OpKernel> make_sqrt(const NodeInfo& node);              // unary_simple.cc
std::unique_ptr<OpKernel> make_reciprocal(const NodeInfo& node);        // unary_simple.cc
std::unique_ptr<OpKernel> make_floor(const NodeInfo& node);             // unary_simple.cc
std::unique_ptr<OpKernel> make_ceil(const NodeInfo& node);              // unary_simple.cc
std::unique_ptr<OpKernel> make_round(const NodeInfo& node);             // unary_simple.cc
std::unique_ptr<OpKernel> make_max(const NodeInfo& node);               // variadic.cc
std::unique_ptr<OpKernel> make_min(const NodeInfo& node);               // variadic.cc
std::unique_ptr<OpKernel> make_sum(const NodeInfo& node);               // variadic.cc
std::unique_ptr<OpKernel> make_mean(const NodeInfo& node);              // variadic.cc
std::unique_ptr<OpKernel> make_clip(const NodeInfo& node);              // clip.cc
std::unique_ptr<OpKernel> make_leaky_relu(const NodeInfo& node);        // activations.cc
std::unique_ptr<OpKernel> make_hard_sigmoid(const NodeInfo& node);      // activations.cc
std::unique_ptr<OpKernel> make_hard_swish(const NodeInfo& node);        // activations.cc
std::unique_ptr<OpKernel> make_pow(const NodeInfo& node);               // pow.cc
std::unique_ptr<OpKernel> make_mod(const NodeInfo& node);               // mod.cc
std::unique_ptr<OpKernel> make_sin(const NodeInfo& node);               // trig.cc
std::unique_ptr<OpKernel> make_cos(const NodeInfo& node);               // trig.cc
std::unique_ptr<OpKernel> make_tan(const NodeInfo& node);               // trig.cc
std::unique_ptr<OpKernel> make_asin(const NodeInfo& node);              // trig.cc
std::unique_ptr<OpKernel> make_acos(const NodeInfo& node);              // trig.cc
std::unique_ptr<OpKernel> make_atan(const NodeInfo& node);              // trig.cc
std::unique_ptr<OpKernel> make_sinh(const NodeInfo& node);              // trig.cc
std::unique_ptr<OpKernel> make_cosh(const NodeInfo& node);              // trig.cc
std::unique_ptr<OpKernel> make_asinh(const NodeInfo& node);             // trig.cc
std::unique_ptr<OpKernel> make_acosh(const NodeInfo& node);             // trig.cc
std::unique_ptr<OpKernel> make_atanh(const NodeInfo& node);             // trig.cc
std::unique_ptr<OpKernel> make_softsign(const NodeInfo& node);          // activations.cc
std::unique_ptr<OpKernel> make_shrink(const NodeInfo& node);            // activations.cc
std::unique_ptr<OpKernel> make_thresholded_relu(const NodeInfo& node);  // activations.cc
std::unique_ptr<OpKernel> make_elu(const NodeInfo& node);               // exp_activations.cc
std::unique_ptr<OpKernel> make_celu(const NodeInfo& node);              // exp_activations.cc
std::unique_ptr<OpKernel> make_selu(const NodeInfo& node);              // exp_activations.cc
std::unique_ptr<OpKernel> make_softplus(const NodeInfo& node);          // exp_activations.cc
std::unique_ptr<OpKernel> make_is_nan(const NodeInfo& node);            // float_class.cc
std::unique_ptr<OpKernel> make_is_inf(const NodeInfo& node);            // float_class.cc
std::unique_ptr<OpKernel> make_bit_shift(const NodeInfo& node);         // bit_shift.cc

// For graph passes (unary_math.cc): Gelu (erf or tanh form) for a node the gelu pass rewrote, which keeps
// the NodeInfo of the Mul it replaced; and whether a kernel is a Gelu of either factory, whatever its node's
// type says.
std::unique_ptr<OpKernel> make_fused_gelu(bool tanh_form);
bool is_gelu_kernel(const OpKernel& kernel);

}  // namespace onemodel::ops

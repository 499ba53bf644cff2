#include "graph/ops/elementwise/factories.h"
#include "graph/ops/families.h"

namespace onemodel::ops {

std::span<const OpDef> elementwise_defs() {
  // Opset starts follow the table of ops-elementwise.md: Add..Div from 7 (before that they had broadcast
  // attributes), the activations and Cast from 6 (the versions before 6 carried consumed_inputs). Softplus
  // and Softsign have one version (opset 1); Celu, Shrink, ThresholdedRelu, IsNaN, IsInf and BitShift start
  // where ONNX introduced them.
  static const OpDef defs[] = {
      {"Add", 7, kLatestOpset, make_add},
      {"Sub", 7, kLatestOpset, make_sub},
      {"Mul", 7, kLatestOpset, make_mul},
      {"Div", 7, kLatestOpset, make_div},
      {"Relu", 6, kLatestOpset, make_relu},
      {"Exp", 6, kLatestOpset, make_exp},
      {"Log", 6, kLatestOpset, make_log},
      {"Tanh", 6, kLatestOpset, make_tanh},
      {"Sigmoid", 6, kLatestOpset, make_sigmoid},
      {"Erf", 9, kLatestOpset, make_erf},
      {"Gelu", 20, kLatestOpset, make_gelu},
      {"Cast", 6, kLatestOpset, make_cast},
      {"Sin", 7, kLatestOpset, make_sin},
      {"Cos", 7, kLatestOpset, make_cos},
      {"CastLike", 15, kLatestOpset, make_cast_like},
      {"Where", 9, kLatestOpset, make_where},
      {"Equal", 7, kLatestOpset, make_equal},
      {"Less", 7, kLatestOpset, make_less},
      {"Greater", 7, kLatestOpset, make_greater},
      {"LessOrEqual", 12, kLatestOpset, make_less_or_equal},
      {"GreaterOrEqual", 12, kLatestOpset, make_greater_or_equal},
      {"Not", 1, kLatestOpset, make_not},
      {"And", 7, kLatestOpset, make_and},
      {"Or", 7, kLatestOpset, make_or},
      {"Xor", 7, kLatestOpset, make_xor},
      {"Neg", 6, kLatestOpset, make_neg},
      {"Abs", 6, kLatestOpset, make_abs},
      {"Sign", 9, kLatestOpset, make_sign},
      {"Sqrt", 6, kLatestOpset, make_sqrt},
      {"Reciprocal", 6, kLatestOpset, make_reciprocal},
      {"Floor", 6, kLatestOpset, make_floor},
      {"Ceil", 6, kLatestOpset, make_ceil},
      {"Round", 11, kLatestOpset, make_round},
      {"Max", 6, kLatestOpset, make_max},
      {"Min", 6, kLatestOpset, make_min},
      {"Sum", 6, kLatestOpset, make_sum},
      {"Mean", 6, kLatestOpset, make_mean},
      {"Clip", 6, kLatestOpset, make_clip},
      {"LeakyRelu", 6, kLatestOpset, make_leaky_relu},
      {"HardSigmoid", 6, kLatestOpset, make_hard_sigmoid},
      {"HardSwish", 14, kLatestOpset, make_hard_swish},
      {"Pow", 7, kLatestOpset, make_pow},
      {"Mod", 10, kLatestOpset, make_mod},
      {"Tan", 7, kLatestOpset, make_tan},
      {"Asin", 7, kLatestOpset, make_asin},
      {"Acos", 7, kLatestOpset, make_acos},
      {"Atan", 7, kLatestOpset, make_atan},
      {"Sinh", 9, kLatestOpset, make_sinh},
      {"Cosh", 9, kLatestOpset, make_cosh},
      {"Asinh", 9, kLatestOpset, make_asinh},
      {"Acosh", 9, kLatestOpset, make_acosh},
      {"Atanh", 9, kLatestOpset, make_atanh},
      {"Elu", 6, kLatestOpset, make_elu},
      {"Celu", 12, kLatestOpset, make_celu},
      {"Selu", 6, kLatestOpset, make_selu},
      {"Softplus", 1, kLatestOpset, make_softplus},
      {"Softsign", 1, kLatestOpset, make_softsign},
      {"Shrink", 9, kLatestOpset, make_shrink},
      {"ThresholdedRelu", 10, kLatestOpset, make_thresholded_relu},
      {"IsNaN", 9, kLatestOpset, make_is_nan},
      {"IsInf", 10, kLatestOpset, make_is_inf},
      {"BitShift", 11, kLatestOpset, make_bit_shift},
  };
  return defs;
}

}  // namespace onemodel::ops

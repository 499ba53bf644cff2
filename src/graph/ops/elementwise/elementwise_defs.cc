#include "graph/ops/elementwise/factories.h"
#include "graph/ops/elementwise/legacy_broadcast.h"
#include "graph/ops/families.h"

namespace onemodel::ops {

std::span<const OpDef> elementwise_defs() {
  // Opset starts follow the table of ops-elementwise.md: the two-input arithmetic, comparison and logic
  // operators from 7, with their opset 1-6 forms (broadcast and axis attributes) adapted onto the same
  // kernels. The one-input operators and the variadic ones start at 1: their versions before 6 differ only by
  // consumed_inputs, an optimisation hint that is ignored. Cast starts at 6 (Cast-1 named its target type by
  // a string). Softplus and Softsign have one version (opset 1); Celu, Shrink, ThresholdedRelu, IsNaN, IsInf
  // and BitShift start where ONNX introduced them.
  static const OpDef defs[] = {
      {"Add", 7, kLatestOpset, make_add},
      {"Sub", 7, kLatestOpset, make_sub},
      {"Mul", 7, kLatestOpset, make_mul},
      {"Div", 7, kLatestOpset, make_div},
      {"Add", 1, 6, make_legacy<make_add>},
      {"Sub", 1, 6, make_legacy<make_sub>},
      {"Mul", 1, 6, make_legacy<make_mul>},
      {"Div", 1, 6, make_legacy<make_div>},
      {"Pow", 1, 6, make_legacy<make_pow>},
      {"Equal", 1, 6, make_legacy<make_equal>},
      {"Less", 1, 6, make_legacy<make_less>},
      {"Greater", 1, 6, make_legacy<make_greater>},
      {"And", 1, 6, make_legacy<make_and>},
      {"Or", 1, 6, make_legacy<make_or>},
      {"Xor", 1, 6, make_legacy<make_xor>},
      {"Relu", 1, kLatestOpset, make_relu},
      {"Exp", 1, kLatestOpset, make_exp},
      {"Log", 1, kLatestOpset, make_log},
      {"Tanh", 1, kLatestOpset, make_tanh},
      {"Sigmoid", 1, kLatestOpset, make_sigmoid},
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
      {"Neg", 1, kLatestOpset, make_neg},
      {"Abs", 1, kLatestOpset, make_abs},
      {"Sign", 9, kLatestOpset, make_sign},
      {"Sqrt", 1, kLatestOpset, make_sqrt},
      {"Reciprocal", 1, kLatestOpset, make_reciprocal},
      {"Floor", 1, kLatestOpset, make_floor},
      {"Ceil", 1, kLatestOpset, make_ceil},
      {"Round", 11, kLatestOpset, make_round},
      {"Max", 1, kLatestOpset, make_max},
      {"Min", 1, kLatestOpset, make_min},
      {"Sum", 1, kLatestOpset, make_sum},
      {"Mean", 1, kLatestOpset, make_mean},
      {"Clip", 1, kLatestOpset, make_clip},
      {"LeakyRelu", 1, kLatestOpset, make_leaky_relu},
      {"HardSigmoid", 1, kLatestOpset, make_hard_sigmoid},
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
      {"Elu", 1, kLatestOpset, make_elu},
      {"Celu", 12, kLatestOpset, make_celu},
      {"Selu", 1, kLatestOpset, make_selu},
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

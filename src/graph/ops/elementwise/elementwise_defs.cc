#include "graph/ops/elementwise/factories.h"
#include "graph/ops/families.h"

namespace onemodel::ops {

std::span<const OpDef> elementwise_defs() {
  // Opset starts follow ops-elementwise.md: Add..Div from 7 (before that they had broadcast attributes), the
  // activations and Cast from 6 (the versions before 6 carried consumed_inputs).
  static const OpDef defs[] = {
      {"Add", 7, kLatestOpset, make_add},         {"Sub", 7, kLatestOpset, make_sub},
      {"Mul", 7, kLatestOpset, make_mul},         {"Div", 7, kLatestOpset, make_div},
      {"Relu", 6, kLatestOpset, make_relu},       {"Exp", 6, kLatestOpset, make_exp},
      {"Log", 6, kLatestOpset, make_log},         {"Tanh", 6, kLatestOpset, make_tanh},
      {"Sigmoid", 6, kLatestOpset, make_sigmoid}, {"Erf", 9, kLatestOpset, make_erf},
      {"Gelu", 20, kLatestOpset, make_gelu},      {"Cast", 6, kLatestOpset, make_cast},
      {"Sin", 7, kLatestOpset, make_sin},         {"Cos", 7, kLatestOpset, make_cos},
  };
  return defs;
}

}  // namespace onemodel::ops

#include "graph/ops/families.h"
#include "graph/ops/shape/factories.h"

namespace onemodel::ops {

std::span<const OpDef> shape_defs() {
  static const OpDef defs[] = {
      {"Identity", 7, kLatestOpset, make_identity},   {"Reshape", 7, kLatestOpset, make_reshape},
      {"Flatten", 7, kLatestOpset, make_flatten},     {"Squeeze", 7, kLatestOpset, make_squeeze},
      {"Unsqueeze", 7, kLatestOpset, make_unsqueeze}, {"Constant", 7, kLatestOpset, make_constant},
      {"Shape", 7, kLatestOpset, make_shape},         {"Transpose", 7, kLatestOpset, make_transpose},
      {"Gather", 7, kLatestOpset, make_gather},       {"Concat", 7, kLatestOpset, make_concat},
  };
  return defs;
}

}  // namespace onemodel::ops

#include "graph/ops/families.h"
#include "graph/ops/shape/factories.h"

namespace onemodel::ops {

std::span<const OpDef> shape_defs() {
  static const OpDef defs[] = {
      {"Identity", 7, kLatestOpset, make_identity},
      {"Reshape", 7, kLatestOpset, make_reshape},
      {"Flatten", 7, kLatestOpset, make_flatten},
      {"Squeeze", 7, kLatestOpset, make_squeeze},
      {"Unsqueeze", 7, kLatestOpset, make_unsqueeze},
      {"Constant", 7, kLatestOpset, make_constant},
      {"Shape", 7, kLatestOpset, make_shape},
      {"Transpose", 7, kLatestOpset, make_transpose},
      {"Gather", 7, kLatestOpset, make_gather},
      {"Concat", 7, kLatestOpset, make_concat},
      {"Size", 7, kLatestOpset, make_size},
      {"Slice", 7, kLatestOpset, make_slice},
      {"Expand", 8, kLatestOpset, make_expand},
      {"Tile", 7, kLatestOpset, make_tile},
      {"Pad", 7, kLatestOpset, make_pad},
      {"ConstantOfShape", 9, kLatestOpset, make_constant_of_shape},
      {"Range", 11, kLatestOpset, make_range},
      {"Split", 7, kLatestOpset, make_split},
      {"Dropout", 7, kLatestOpset, make_dropout},
      {"GatherElements", 11, kLatestOpset, make_gather_elements},
      {"GatherND", 11, kLatestOpset, make_gather_nd},
      {"ScatterND", 11, kLatestOpset, make_scatter_nd},
      {"Trilu", 14, kLatestOpset, make_trilu},
      {"OneHot", 9, kLatestOpset, make_one_hot},
      {"NonZero", 9, kLatestOpset, make_non_zero},
      {"TopK", 7, kLatestOpset, make_top_k},
  };
  return defs;
}

}  // namespace onemodel::ops

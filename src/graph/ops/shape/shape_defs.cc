#include "graph/ops/families.h"
#include "graph/ops/shape/factories.h"

namespace onemodel::ops {

std::span<const OpDef> shape_defs() {
  static const OpDef defs[] = {
      {"Identity", 1, kLatestOpset, make_identity},
      {"Reshape", 5, kLatestOpset, make_reshape},
      {"Flatten", 1, kLatestOpset, make_flatten},
      {"Squeeze", 1, kLatestOpset, make_squeeze},
      {"Unsqueeze", 1, kLatestOpset, make_unsqueeze},
      {"Constant", 1, kLatestOpset, make_constant},
      {"Shape", 1, kLatestOpset, make_shape},
      {"Transpose", 1, kLatestOpset, make_transpose},
      {"Gather", 1, kLatestOpset, make_gather},
      {"Concat", 4, kLatestOpset, make_concat},
      {"Size", 1, kLatestOpset, make_size},
      {"Slice", 1, kLatestOpset, make_slice},
      {"Expand", 8, kLatestOpset, make_expand},
      {"Tile", 6, kLatestOpset, make_tile},
      {"Pad", 2, kLatestOpset, make_pad},
      {"ConstantOfShape", 9, kLatestOpset, make_constant_of_shape},
      {"Range", 11, kLatestOpset, make_range},
      {"Split", 2, kLatestOpset, make_split},
      {"Dropout", 7, kLatestOpset, make_dropout},
      {"GatherElements", 11, kLatestOpset, make_gather_elements},
      {"GatherND", 11, kLatestOpset, make_gather_nd},
      {"ScatterND", 11, kLatestOpset, make_scatter_nd},
      {"Trilu", 14, kLatestOpset, make_trilu},
      {"OneHot", 9, kLatestOpset, make_one_hot},
      {"NonZero", 9, kLatestOpset, make_non_zero},
      {"TopK", 1, kLatestOpset, make_top_k},
      {"Scatter", 9, 10, make_scatter_elements},
      {"ScatterElements", 11, kLatestOpset, make_scatter_elements},
      {"Compress", 9, kLatestOpset, make_compress},
      {"Unique", 11, kLatestOpset, make_unique_op},
      {"ReverseSequence", 10, kLatestOpset, make_reverse_sequence},
      {"DepthToSpace", 1, kLatestOpset, make_depth_to_space},
      {"SpaceToDepth", 1, kLatestOpset, make_space_to_depth},
      {"EyeLike", 9, kLatestOpset, make_eye_like},
  };
  return defs;
}

}  // namespace onemodel::ops

#include "graph/ops/families.h"
#include "graph/ops/vision/factories.h"

namespace onemodel::ops {

std::span<const OpDef> vision_defs() {
  static const OpDef defs[] = {
      {"BatchNormalization", 1, kLatestOpset, make_batch_norm},
      {"PRelu", 7, kLatestOpset, make_prelu},
      {"PRelu", 1, 6, make_legacy_prelu},
      {"Resize", 10, kLatestOpset, make_resize},
      {"Upsample", 7, 10, make_upsample},
      {"NonMaxSuppression", 10, kLatestOpset, make_non_max_suppression},
      {"RoiAlign", 10, kLatestOpset, make_roi_align},
      {"GridSample", 16, kLatestOpset, make_grid_sample},
  };
  return defs;
}

}  // namespace onemodel::ops

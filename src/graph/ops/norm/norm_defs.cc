#include "graph/ops/families.h"
#include "graph/ops/norm/factories.h"

namespace onemodel::ops {

std::span<const OpDef> norm_defs() {
  static const OpDef defs[] = {
      {"Softmax", 1, kLatestOpset, make_softmax},
      {"LogSoftmax", 1, kLatestOpset, make_log_softmax},
      {"Hardmax", 1, kLatestOpset, make_hardmax},
      {"LayerNormalization", 17, kLatestOpset, make_layer_norm},
      {"RMSNormalization", 23, kLatestOpset, make_rms_norm},
      {"InstanceNormalization", 1, kLatestOpset, make_instance_norm},
      {"GroupNormalization", 18, kLatestOpset, make_group_norm},
      {"MeanVarianceNormalization", 9, kLatestOpset, make_mean_variance_norm},
      {"LRN", 1, kLatestOpset, make_lrn},
  };
  return defs;
}

}  // namespace onemodel::ops

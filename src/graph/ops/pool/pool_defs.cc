#include "graph/ops/families.h"
#include "graph/ops/pool/factories.h"

namespace onemodel::ops {

std::span<const OpDef> pool_defs() {
  static const OpDef defs[] = {
      {"MaxPool", 1, kLatestOpset, make_max_pool},
      {"AveragePool", 1, kLatestOpset, make_average_pool},
      {"GlobalMaxPool", 1, kLatestOpset, make_global_max_pool},
      {"GlobalAveragePool", 1, kLatestOpset, make_global_average_pool},
      {"LpPool", 2, kLatestOpset, make_lp_pool},
      {"GlobalLpPool", 2, kLatestOpset, make_global_lp_pool},
      {"MaxUnpool", 9, kLatestOpset, make_max_unpool},
  };
  return defs;
}

}  // namespace onemodel::ops

#include "graph/ops/families.h"
#include "graph/ops/reduce/factories.h"

namespace onemodel::ops {

std::span<const OpDef> reduce_defs() {
  static const OpDef defs[] = {
      {"ReduceMax", 7, kLatestOpset, make_reduce_max},
  };
  return defs;
}

}  // namespace onemodel::ops

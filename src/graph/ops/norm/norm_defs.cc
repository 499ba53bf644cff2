#include "graph/ops/families.h"
#include "graph/ops/norm/factories.h"

namespace onemodel::ops {

std::span<const OpDef> norm_defs() {
  static const OpDef defs[] = {
      {"Softmax", 7, kLatestOpset, make_softmax},
  };
  return defs;
}

}  // namespace onemodel::ops

#include "graph/ops/conv/factories.h"
#include "graph/ops/families.h"

namespace onemodel::ops {

std::span<const OpDef> conv_defs() {
  static const OpDef defs[] = {
      {"Conv", 1, kLatestOpset, make_conv},
      {"ConvTranspose", 1, kLatestOpset, make_conv_transpose},
  };
  return defs;
}

}  // namespace onemodel::ops

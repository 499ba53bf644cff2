#include "graph/ops/families.h"
#include "graph/ops/loss/factories.h"

namespace onemodel::ops {

std::span<const OpDef> loss_defs() {
  static const OpDef defs[] = {
      {"NegativeLogLikelihoodLoss", 12, kLatestOpset, make_nll_loss},
      {"SoftmaxCrossEntropyLoss", 12, kLatestOpset, make_softmax_cross_entropy_loss},
  };
  return defs;
}

}  // namespace onemodel::ops

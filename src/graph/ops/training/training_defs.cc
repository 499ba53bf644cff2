#include "graph/ops/families.h"
#include "graph/ops/training/factories.h"

namespace onemodel::ops {

std::span<const OpDef> training_defs() {
  static constexpr std::string_view kDomain = "ai.onnx.preview.training";
  static const OpDef defs[] = {
      {"Adagrad", 1, kLatestOpset, make_adagrad, kDomain},
      {"Momentum", 1, kLatestOpset, make_momentum, kDomain},
      {"Adam", 1, kLatestOpset, make_adam, kDomain},
  };
  return defs;
}

}  // namespace onemodel::ops

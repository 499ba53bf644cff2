#include "graph/ops/families.h"
#include "graph/ops/random/factories.h"

namespace onemodel::ops {

std::span<const OpDef> random_defs() {
  static const OpDef defs[] = {
      {"RandomUniform", 1, kLatestOpset, make_random_uniform},
      {"RandomUniformLike", 1, kLatestOpset, make_random_uniform_like},
      {"RandomNormal", 1, kLatestOpset, make_random_normal},
      {"RandomNormalLike", 1, kLatestOpset, make_random_normal_like},
      {"Bernoulli", 15, kLatestOpset, make_bernoulli},
  };
  return defs;
}

}  // namespace onemodel::ops

// The work a fused product node runs on its finished outputs (graph passes conv-activation and
// linear-pack-fuse): an activation node's own kernel, applied in place while the outputs are still in cache.
#pragma once

#include <cstdint>

#include "graph/op.h"

namespace onemodel::ops {

class FusedEpilogue {
 public:
  virtual ~FusedEpilogue() = default;
  // `y` holds `count` contiguous finished outputs (bias already added), rewritten in place. `run` is the
  // fused node's run (the epilogue's own inputs follow the product's); `threads` is what the epilogue may
  // use.
  virtual void apply(const OpRun& run, float* y, int64_t count, ThreadContext threads) const = 0;
};

}  // namespace onemodel::ops

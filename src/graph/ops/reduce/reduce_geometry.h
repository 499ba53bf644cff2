// The shape of a reduction after simplification (ops-norms.md "Reductions", Geometry): extent-1 axes dropped
// and neighbouring axes of the same kind (both reduced or both kept) merged, so kept and reduced runs
// alternate.
#pragma once

#include <cstdint>

#include "core/shape.h"

namespace onemodel::ops {

struct ReduceGeometry {
  int rank = 0;
  int64_t dims[kMaxRank];
  bool reduced[kMaxRank];
  int64_t outputs = 1;     // product of the kept extents
  int64_t per_output = 1;  // elements reduced into each output

  // Column layout: the last run is kept, so neighbouring outputs read neighbouring elements.
  bool column() const { return rank > 0 && !reduced[rank - 1]; }
};

// Axis a of `in` is reduced when bit a of `mask` is set.
ReduceGeometry reduce_geometry(const Shape& in, uint32_t mask);

// The output shape: reduced axes become 1 (keep_dims) or disappear.
Shape reduced_shape(const Shape& in, uint32_t mask, bool keep_dims);

}  // namespace onemodel::ops

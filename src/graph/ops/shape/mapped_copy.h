// The copy behind Slice, Expand, Tile and Pad: every output coordinate on every axis names the input
// coordinate it reads (or none, for padding), so one walk serves all four operators.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/arena.h"
#include "core/shape.h"

namespace onemodel::ops {

// Per output axis, the input coordinate read at each output coordinate; -1 reads the fill element. Extents
// are below 2^31, so 32 bits hold every coordinate and keep the tables small.
struct AxisMaps {
  int32_t* axis[kMaxRank] = {};
};

// Scratch tables sized for `out`'s extents, to be filled by the caller.
AxisMaps allocate_axis_maps(Arena& scratch, const Shape& out);

// out[i_0..i_r] = in[maps.axis[0][i_0], ..] or *fill where a map holds -1. `in` and `out` have the same rank
// and element type; `fill` may be null when no map holds -1.
void mapped_copy(const TensorRef& in, const TensorRef& out, const AxisMaps& maps, const std::byte* fill);

}  // namespace onemodel::ops

// The walk shared by GatherElements and ScatterElements: every position of the indices tensor paired with the
// data element it names once its `axis` coordinate is known.
#pragma once

#include <string>

#include "core/shape.h"
#include "graph/op.h"
#include "graph/ops/shape/offset_walker.h"

namespace onemodel::ops {

// Plan time: input 1 (indices) is int32 or int64 of the rank of input 0 (data) with no extent larger than the
// data's off the axis. Returns `axis` counted from the front; fails naming the node otherwise.
inline int check_element_indices(const InferContext& ctx, int64_t axis) {
  const Shape& data = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  if (ctx.input_dtype(1) != DType::I64 && ctx.input_dtype(1) != DType::I32)
    ctx.fail("indices must be int64 or int32");
  if (indices.rank != data.rank) ctx.fail("indices and data must have the same rank");
  const int a = normalize_axis(axis, data.rank);
  if (a < 0) ctx.fail("axis " + std::to_string(axis) + " is outside the rank " + std::to_string(data.rank));
  for (int i = 0; i < data.rank; ++i) {
    if (i != a && indices[i] > data[i]) ctx.fail("indices " + indices.str() + " exceed data " + data.str());
  }
  return a;
}

// Walks the index tuples of `positions` (the indices' shape, same rank as `data`, no extent larger than the
// data's off the axis): b() is the offset in `positions`, a() the offset in `data` with the `axis` coordinate
// at 0. The element named by index i lies at a() + i * data.count(axis + 1, rank). `positions` has no
// empty extent.
inline OffsetWalker element_walk(const Shape& data, const Shape& positions, int axis) {
  int64_t data_stride = 1, position_stride = 1;
  int64_t strides[kMaxRank][2];
  for (int a = data.rank - 1; a >= 0; --a) {
    strides[a][0] = a == axis ? 0 : data_stride;
    strides[a][1] = position_stride;
    data_stride *= data[a];
    position_stride *= positions[a];
  }
  OffsetWalker walk;
  for (int a = 0; a < data.rank; ++a) walk.add_axis(positions[a], strides[a][0], strides[a][1]);
  return walk;
}

}  // namespace onemodel::ops

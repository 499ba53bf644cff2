// The `reduction` attribute shared by ScatterND and ScatterElements: how an update meets the element already
// in the output. Updates are applied one at a time in the order the indices list them, so a repeated index
// folds its updates in that order (one correctly rounded operation each: the result is the same on every
// machine).
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/op.h"

namespace onemodel::ops {

enum class Reduction { None, Add, Mul, Max, Min };

// The node's `reduction` (opset 16+; max and min from 18). Fails naming the node on an unknown value.
Reduction scatter_reduction(const NodeInfo& node);

// Fails (Unsupported, naming the node) when `reduction` folds values of a type the fold below does not cover
// (float32, float64, int32 and int64 do; None moves bytes of any type).
void check_scatter_reduction_type(const InferContext& ctx, Reduction reduction, DType dtype);

// Applies `count` updates of `width`-byte elements at src to dst: a byte copy for None, else fold() in the
// element type (one checked by check_scatter_reduction_type).
void scatter_slice(Reduction r, DType dtype, std::byte* dst, const std::byte* src, int64_t count,
                   size_t width);

}  // namespace onemodel::ops

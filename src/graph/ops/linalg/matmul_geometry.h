// The operand geometry of numpy-style matrix products (MatMul and the int8 products): a 1-D operand gains a
// unit axis, leading (batch) axes broadcast.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "graph/ops/shape/offset_walker.h"

namespace onemodel::ops {

// The operands as batches of matrices: batch shapes padded to the output's batch rank, matrices m x k and k x
// n.
struct MatMulGeometry {
  Shape a_batch, b_batch, batch;
  int64_t m = 0, k = 0, n = 0;

  // One shared B and unbroadcast A batches: the batches can run as more rows of one product.
  bool batches_are_rows() const { return b_batch.count() == 1 && a_batch.count() == batch.count(); }
  // The A and B element offsets of each output batch, in order (0 strides where an operand broadcasts).
  OffsetWalker batch_walker() const;
};

// False when the shapes do not multiply.
bool matmul_geometry(const Shape& a, const Shape& b, MatMulGeometry& g);

}  // namespace onemodel::ops

#include "graph/ops/linalg/matmul_geometry.h"

namespace onemodel::ops {

bool matmul_geometry(const Shape& a, const Shape& b, MatMulGeometry& g) {
  if (a.rank == 0 || b.rank == 0) return false;
  g.m = a.rank == 1 ? 1 : a[a.rank - 2];
  g.k = a[a.rank - 1];
  const int64_t kb = b.rank == 1 ? b[0] : b[b.rank - 2];
  g.n = b.rank == 1 ? 1 : b[b.rank - 1];
  if (kb != g.k) return false;
  g.a_batch.rank = a.rank > 2 ? a.rank - 2 : 0;
  g.b_batch.rank = b.rank > 2 ? b.rank - 2 : 0;
  for (int i = 0; i < g.a_batch.rank; ++i) g.a_batch[i] = a[i];
  for (int i = 0; i < g.b_batch.rank; ++i) g.b_batch[i] = b[i];
  if (!broadcast_shapes(g.a_batch, g.b_batch, g.batch)) return false;
  // Right-align the operand batch shapes with the output's.
  for (Shape* s : {&g.a_batch, &g.b_batch}) {
    Shape padded;
    padded.rank = g.batch.rank;
    const int offset = g.batch.rank - s->rank;
    for (int i = 0; i < padded.rank; ++i) padded[i] = i < offset ? 1 : (*s)[i - offset];
    *s = padded;
  }
  return true;
}

OffsetWalker MatMulGeometry::batch_walker() const {
  OffsetWalker walk;
  int64_t a_stride = m * k, b_stride = k * n;
  int64_t a_strides[kMaxRank], b_strides[kMaxRank];
  for (int i = batch.rank - 1; i >= 0; --i) {
    a_strides[i] = a_batch[i] == 1 ? 0 : a_stride;
    b_strides[i] = b_batch[i] == 1 ? 0 : b_stride;
    a_stride *= a_batch[i];
    b_stride *= b_batch[i];
  }
  for (int i = 0; i < batch.rank; ++i) walk.add_axis(batch[i], a_strides[i], b_strides[i]);
  return walk;
}

}  // namespace onemodel::ops

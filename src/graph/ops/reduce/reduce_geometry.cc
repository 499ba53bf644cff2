#include "graph/ops/reduce/reduce_geometry.h"

namespace onemodel::ops {

ReduceGeometry reduce_geometry(const Shape& in, uint32_t mask) {
  ReduceGeometry g;
  for (int a = 0; a < in.rank; ++a) {
    const bool reduced = (mask >> a) & 1u;
    (reduced ? g.per_output : g.outputs) *= in[a];
    if (in[a] == 1) continue;
    if (g.rank > 0 && g.reduced[g.rank - 1] == reduced) {
      g.dims[g.rank - 1] *= in[a];
    } else {
      g.dims[g.rank] = in[a];
      g.reduced[g.rank] = reduced;
      ++g.rank;
    }
  }
  return g;
}

Shape reduced_shape(const Shape& in, uint32_t mask, bool keep_dims) {
  Shape out;
  for (int a = 0; a < in.rank; ++a) {
    const bool reduced = (mask >> a) & 1u;
    if (!reduced) {
      out.dims[static_cast<size_t>(out.rank++)] = in[a];
    } else if (keep_dims) {
      out.dims[static_cast<size_t>(out.rank++)] = 1;
    }
  }
  return out;
}

}  // namespace onemodel::ops

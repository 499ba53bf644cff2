#include "graph/ops/reduce/reduce_engine.h"

namespace onemodel::ops {

ReduceWalk::ReduceWalk(const ReduceGeometry& g) : column_(g.column()) {
  int64_t stride[kMaxRank];
  int64_t s = 1;
  for (int a = g.rank - 1; a >= 0; --a) {
    stride[a] = s;
    s *= g.dims[a];
  }
  const int last = g.rank - 1;
  if (g.rank > 0) (column_ ? inner_ : run_) = g.dims[last];
  for (int a = 0; a < last; ++a) {
    if (g.reduced[a]) {
      reduced_.add_axis(g.dims[a], stride[a], 0);
    } else {
      outer_dims_[outer_rank_] = g.dims[a];
      outer_strides_[outer_rank_++] = stride[a];
    }
  }
  tiles_ = (inner_ + kTile - 1) / kTile;
  units_ = column_ ? (g.outputs / inner_) * tiles_ : g.outputs;
  const int64_t unit_work = g.per_output * (column_ ? std::min(inner_, kTile) : 1);
  per_chunk_ = std::max<int64_t>(1, kChunkWork / std::max<int64_t>(1, unit_work));
}

ReduceWalk::Unit ReduceWalk::unit(int64_t u) const {
  const int64_t group = column_ ? u / tiles_ : u;
  int64_t offset = 0;
  for (int64_t a = outer_rank_ - 1, index = group; a >= 0; --a) {
    offset += (index % outer_dims_[a]) * outer_strides_[a];
    index /= outer_dims_[a];
  }
  if (!column_) return {offset, u, 1};
  const int64_t j0 = (u % tiles_) * kTile;
  return {offset + j0, group * inner_ + j0, std::min(kTile, inner_ - j0)};
}

}  // namespace onemodel::ops

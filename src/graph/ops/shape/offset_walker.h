// Row-major walk over the index tuples of a few axes, keeping two linear offsets (typically source and
// destination) up to date incrementally. Used by the copy kernels of this directory and by the reductions.
#pragma once

#include <cstdint>

#include "core/shape.h"

namespace onemodel::ops {

class OffsetWalker {
 public:
  // Adds an axis inside the ones added before (the last axis added varies fastest). Extents must be positive.
  void add_axis(int64_t extent, int64_t stride_a, int64_t stride_b) {
    extent_[rank_] = extent;
    stride_a_[rank_] = stride_a;
    stride_b_[rank_] = stride_b;
    index_[rank_] = 0;
    ++rank_;
  }

  int64_t a() const { return a_; }
  int64_t b() const { return b_; }

  // Moves to the next tuple; false (with the offsets back at 0) after the last one.
  bool next() {
    for (int i = rank_ - 1; i >= 0; --i) {
      if (++index_[i] < extent_[i]) {
        a_ += stride_a_[i];
        b_ += stride_b_[i];
        return true;
      }
      index_[i] = 0;
      a_ -= (extent_[i] - 1) * stride_a_[i];
      b_ -= (extent_[i] - 1) * stride_b_[i];
    }
    return false;
  }

 private:
  int rank_ = 0;
  int64_t extent_[kMaxRank], stride_a_[kMaxRank], stride_b_[kMaxRank], index_[kMaxRank];
  int64_t a_ = 0, b_ = 0;
};

}  // namespace onemodel::ops

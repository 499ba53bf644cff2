// The canonical 16-partial-sum order of kernels-attention.md (block sum, softmax denominator): partial t adds
// the terms with index j = t (mod 16) in increasing j from +0; the 16 partials then fold pairwise (t with
// t+8, then t+4, t+2, t+1). Lane i of accumulator vector k holds partial k*width + i, so every lane width
// gives the same bits.
#pragma once

#include <cstddef>

#include "kernels/simd.h"

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::math {

template <class L>
class Sum16 {
  static_assert(16 % L::width == 0, "the lanes must tile the 16 partials");
  static constexpr int kVectors = 16 / L::width;

 public:
  Sum16() {
    for (auto& a : acc_) a = L::splat(0.0f);
  }

  // Adds terms j0 .. j0+15 for a j0 that is a multiple of 16 (terms given as kVectors vectors, in order).
  void add_block(const typename L::F* terms) {
    for (int k = 0; k < kVectors; ++k) acc_[k] = acc_[k] + terms[k];
  }

  // Adds the last `count` (< 16) terms, which start at a multiple of 16, and returns the total.
  float finish(const float* last, size_t count) const {
    alignas(64) float partial[16];
    for (int k = 0; k < kVectors; ++k) L::store(partial + k * L::width, acc_[k]);
    for (size_t t = 0; t < count; ++t) partial[t] = partial[t] + last[t];
    for (int half = 8; half >= 1; half /= 2) {
      for (int t = 0; t < half; ++t) partial[t] = partial[t] + partial[t + half];
    }
    return partial[0];
  }

 private:
  typename L::F acc_[kVectors];
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::math

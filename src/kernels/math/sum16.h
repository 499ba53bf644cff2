// The canonical 16-partial-sum order of kernels-attention.md (block sum, softmax denominator): partial t adds
// the terms with index j = t (mod 16) in increasing j from +0; the 16 partials then fold pairwise (t with
// t+8, then t+4, t+2, t+1). Lane i of accumulator vector k holds partial k*width + i, so every lane width
// gives the same bits.
#pragma once

#include <cstddef>

#include "kernels/simd.h"

#if defined(__SSE4_1__)
// x86, and wasm through Emscripten's SSE headers.
#include <immintrin.h>
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::math {

template <class L>
class Sum16 {
  static_assert(16 % L::width == 0, "the lanes must tile the 16 partials");
  static constexpr int kVectors = 16 / L::width;
  // Whether fold_in_registers() serves these lanes: 128-bit lanes from SSE4.1 (and wasm's), 256-bit from
  // AVX, 512-bit with AVX512DQ.
  static constexpr bool kFoldsInRegisters =
#if defined(__SSE4_1__)
      L::width == 4 ||
#endif
#if defined(__AVX__)
      L::width == 8 ||
#endif
#if defined(__AVX512DQ__)
      L::width == 16 ||
#endif
      false;

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
    if constexpr (kFoldsInRegisters) {
      if (count == 0) return this->fold_in_registers();
    }
    alignas(64) float partial[16];
    for (int k = 0; k < kVectors; ++k) L::store(partial + k * L::width, acc_[k]);
    for (size_t t = 0; t < count; ++t) partial[t] = partial[t] + last[t];
    for (int half = 8; half >= 1; half /= 2) {
      for (int t = 0; t < half; ++t) partial[t] = partial[t] + partial[t + half];
    }
    return partial[0];
  }

 private:
#if defined(__SSE4_1__)
  // The fold above without a tail, in registers: folding through memory made the compiler store each level
  // and reload its halves, a store-forwarding stall per level (a quarter of the attention kernel's own time
  // in a small encoder). Every addition has the operands it has above, partial t first.
  float fold_in_registers() const {
    __m128 q = _mm_setzero_ps();  // partials 0-3 once t + 8 and t + 4 are folded
#if defined(__AVX512DQ__)
    if constexpr (L::width == 16) {
      const __m512 v = acc_[0];
      const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
      q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    }
#endif
#if defined(__AVX__)
    if constexpr (L::width == 8) {
      const __m256 h = _mm256_add_ps(acc_[0], acc_[1]);
      q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    }
#endif
    if constexpr (L::width == 4) q = _mm_add_ps(_mm_add_ps(acc_[0], acc_[2]), _mm_add_ps(acc_[1], acc_[3]));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));                        // t + 2
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_shuffle_ps(q, q, 1)));  // t + 1
  }
#endif

  typename L::F acc_[kVectors];
};

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE::math

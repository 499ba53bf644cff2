// The canonical sum of ops-norms.md in scalar code (the same order as src/kernels/math/sum16.h): term q goes
// to partial q mod 16, partials start at +0 and are folded pairwise at the end (t with t+8, t+4, t+2, t+1).
#pragma once

#include <cstdint>

namespace onemodel::ops {

template <class T, class Add>
class CanonicalSum {
 public:
  explicit CanonicalSum(Add add) : add_(add) {}

  // Adds term(i) for i in [0, n) as the next n terms of the sequence.
  template <class Term>
  void add(int64_t n, Term term) {
    T p[16];  // a local copy the compiler can keep in registers while term() reads memory
    for (int k = 0; k < 16; ++k) p[k] = partial_[k];
    int64_t i = 0;
    for (; i < n && (q_ & 15) != 0; ++i, ++q_) p[q_ & 15] = add_(p[q_ & 15], term(i));
    for (; i + 16 <= n; i += 16, q_ += 16) {
      for (int k = 0; k < 16; ++k) p[k] = add_(p[k], term(i + k));
    }
    for (; i < n; ++i, ++q_) p[q_ & 15] = add_(p[q_ & 15], term(i));
    for (int k = 0; k < 16; ++k) partial_[k] = p[k];
  }

  T total() {
    for (int half = 8; half >= 1; half /= 2) {
      for (int t = 0; t < half; ++t) partial_[t] = add_(partial_[t], partial_[t + half]);
    }
    return partial_[0];
  }

 private:
  Add add_;
  T partial_[16] = {};
  int64_t q_ = 0;  // index of the next term
};

// The canonical float sum of term(0) .. term(n-1).
struct FloatAdd {
  float operator()(float a, float b) const { return a + b; }
};

template <class Term>
float canonical_sum(int64_t n, Term term) {
  CanonicalSum<float, FloatAdd> sum({});
  sum.add(n, term);
  return sum.total();
}

}  // namespace onemodel::ops

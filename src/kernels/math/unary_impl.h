// Element-wise transcendental kernel and Softmax.Rows (kernels-attention.md "Softmax"), templates over a
// lanes type instantiated once per kernel path by paths/instantiate.inc. Full vectors first, then the path's
// one-lane `L::Tail` running the same code, so a value's result never depends on where it sits in the array.
#pragma once

#include <cstddef>

#include "kernels/kernel_table.h"
#include "kernels/math/sum16.h"
#include "kernels/math/transcendental.h"
#include "kernels/simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include <bit>
#endif

namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE {

namespace math_detail {

template <class L, UnaryFn kFn, bool kFast>
inline typename L::F eval_unary(typename L::F x) {
  if constexpr (kFn == UnaryFn::Exp)
    return math::exp<L, kFast>(x);
  else if constexpr (kFn == UnaryFn::Log)
    return math::log<L, kFast>(x);
  else if constexpr (kFn == UnaryFn::Tanh)
    return math::tanh<L, kFast>(x);
  else if constexpr (kFn == UnaryFn::Erf)
    return math::erf<L, kFast>(x);
  else if constexpr (kFn == UnaryFn::Sigmoid)
    return math::sigmoid<L, kFast>(x);
  else if constexpr (kFn == UnaryFn::GeluErf)
    return math::gelu_erf<L, kFast>(x);
  else
    return math::gelu_tanh<L, kFast>(x);
}

// Two vectors per step where there are: each function is one long chain of dependent operations (erf's
// polynomial alone has 16 steps), and a second, independent chain in the same step lets the CPU overlap the
// two instead of waiting on each operation's latency (GELU over 1M floats in wasm: 8.4 -> 7.0 ms). Every
// element runs the same operations either way, so the bits do not change.
template <class L, UnaryFn kFn, bool kFast>
void unary_loop(const float* x, float* y, size_t n) {
  using T = typename L::Tail;
  size_t i = 0;
  for (; i + 2 * L::width <= n; i += 2 * L::width) {
    const typename L::F first = eval_unary<L, kFn, kFast>(L::load(x + i));
    const typename L::F second = eval_unary<L, kFn, kFast>(L::load(x + i + L::width));
    L::store(y + i, first);
    L::store(y + i + L::width, second);
  }
  for (; i + L::width <= n; i += L::width) L::store(y + i, eval_unary<L, kFn, kFast>(L::load(x + i)));
  for (; i < n; ++i) T::store(y + i, eval_unary<T, kFn, kFast>(T::load(x + i)));
}

#if defined(__AVX512F__)
// v[0 .. count rounded up to 32) = gelu_erf(v) with erf's formula kBranch, two vectors per step as in
// unary_loop (the second chain hides the first's latency).
template <class L, bool kFast, math::ErfBranch kBranch>
void gelu_erf_in_place(float* v, size_t count) {
  for (size_t j = 0; j < count; j += 2 * L::width) {
    const typename L::F first = math::gelu_erf<L, kFast, kBranch>(L::load(v + j));
    const typename L::F second = math::gelu_erf<L, kFast, kBranch>(L::load(v + j + L::width));
    L::store(v + j, first);
    L::store(v + j + L::width, second);
  }
}

// Erf-form GELU with the lanes sorted by erf's formula first. unary_loop computes both formulas for every
// lane and keeps one; here a block's values are compressed into one buffer per formula (vcompressps), each
// buffer runs only its formula (ErfBranch), and the results are expanded back to their places. Every value
// still goes through the operations of the formula it would have kept, so the bits do not change, and a
// value of the small formula costs a fraction of the both-formula loop. The lanes past a buffer's count are
// evaluated too and never read; the buffers start zeroed so that no lane is uninitialised memory.
template <class L, bool kFast>
void gelu_erf_sorted(const float* x, float* y, size_t n) {
  constexpr size_t kBlock = 1024, kVectors = kBlock / 16;
  alignas(64) float small[kBlock + 32] = {}, large[kBlock + 32] = {};
  __mmask16 is_small[kVectors];
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    size_t small_count = 0, large_count = 0;
    for (size_t v = 0; v < kVectors; ++v) {
      const __m512 xv = _mm512_loadu_ps(x + i + v * 16);
      const __mmask16 m = math::gelu_erf_small_branch<L>(typename L::F(xv));
      is_small[v] = m;
      _mm512_storeu_ps(small + small_count, _mm512_maskz_compress_ps(m, xv));
      _mm512_storeu_ps(large + large_count, _mm512_maskz_compress_ps(static_cast<__mmask16>(~m), xv));
      const auto taken = static_cast<size_t>(std::popcount(static_cast<unsigned>(m)));
      small_count += taken;
      large_count += 16 - taken;
    }
    gelu_erf_in_place<L, kFast, math::ErfBranch::Small>(small, small_count);
    gelu_erf_in_place<L, kFast, math::ErfBranch::Large>(large, large_count);
    small_count = large_count = 0;
    for (size_t v = 0; v < kVectors; ++v) {
      const __mmask16 m = is_small[v];
      const __m512 from_small = _mm512_maskz_expand_ps(m, _mm512_loadu_ps(small + small_count));
      _mm512_storeu_ps(y + i + v * 16, _mm512_mask_expand_ps(from_small, static_cast<__mmask16>(~m),
                                                             _mm512_loadu_ps(large + large_count)));
      const auto taken = static_cast<size_t>(std::popcount(static_cast<unsigned>(m)));
      small_count += taken;
      large_count += 16 - taken;
    }
  }
  unary_loop<L, UnaryFn::GeluErf, kFast>(x + i, y + i, n - i);
}
#endif

template <class L, UnaryFn kFn>
void unary_flavour(bool exact, const float* x, float* y, size_t n) {
#if defined(__AVX512F__)
  if constexpr (kFn == UnaryFn::GeluErf && L::width == 16) {
    if (exact)
      gelu_erf_sorted<L, false>(x, y, n);
    else
      gelu_erf_sorted<L, true>(x, y, n);
    return;
  }
#endif
  if (exact)
    unary_loop<L, kFn, false>(x, y, n);
  else
    unary_loop<L, kFn, true>(x, y, n);
}

// Largest element ignoring NaN; -inf when there is none.
template <class L>
float row_max(const float* x, size_t n) {
  const float neg_inf = -__builtin_inff();
  size_t j = 0;
  typename L::F mv = L::splat(neg_inf);
  for (; j + L::width <= n; j += L::width) {
    mv = L::raise_to(mv, L::load(x + j));
  }
  alignas(64) float lanes[L::width];
  L::store(lanes, mv);
  float m = neg_inf;
  for (int i = 0; i < L::width; ++i) m = lanes[i] > m ? lanes[i] : m;
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

// Exact divides a term by the sum l (factor = l); fast multiplies it by factor = 1/l.
template <class L, bool kFast>
inline typename L::F normalise(typename L::F e, float factor) {
  if constexpr (kFast)
    return simd::canonicalize_nan<L>(e * L::splat(factor));
  else
    return simd::canonicalize_nan<L>(e / L::splat(factor));
}

// One row. e[j] = exp_non_positive(x[j] - m) is written to y first and summed in the canonical 16-partial
// order; then y[j] = e[j] / l (fast: e[j] * (1/l)), NaN made canonical. A row whose finite maximum does not
// exist (all -inf or NaN) has m = -inf, so x[j] - m is NaN and the whole row becomes NaN; a NaN or +inf
// element makes l NaN and does the same. This matches the attention definition of kernels-attention.md.
template <class L, bool kFast>
void softmax_row(const float* x, float* y, size_t n) {
  using F = typename L::F;
  using T = typename L::Tail;
  constexpr size_t kVectors = 16 / L::width;
  const float m = row_max<L>(x, n);

  math::Sum16<L> sum;
  const F mv = L::splat(m);
  size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    F e[kVectors];
    for (size_t k = 0; k < kVectors; ++k) {
      const size_t at = j + k * L::width;
      e[k] = math::exp_non_positive<L, kFast>(L::load(x + at) - mv);
      L::store(y + at, e[k]);
    }
    sum.add_block(e);
  }
  const size_t last = j;
  for (; j < n; ++j) y[j] = math::exp_non_positive<T, kFast>(x[j] - m);
  const float l = sum.finish(y + last, n - last);

  const float factor = kFast ? 1.0f / l : l;
  j = 0;
  for (; j + L::width <= n; j += L::width) L::store(y + j, normalise<L, kFast>(L::load(y + j), factor));
  for (; j < n; ++j) T::store(y + j, normalise<T, kFast>(T::load(y + j), factor));
}

}  // namespace math_detail

// y[i] = fn(x[i]) in the exact or fast flavour of exact-transcendentals.md; x and y may be the same buffer.
template <class L>
void unary_kernel(UnaryFn fn, bool exact, const float* x, float* y, size_t n) {
  using namespace math_detail;
  switch (fn) {
    case UnaryFn::Exp:
      return unary_flavour<L, UnaryFn::Exp>(exact, x, y, n);
    case UnaryFn::Log:
      return unary_flavour<L, UnaryFn::Log>(exact, x, y, n);
    case UnaryFn::Tanh:
      return unary_flavour<L, UnaryFn::Tanh>(exact, x, y, n);
    case UnaryFn::Erf:
      return unary_flavour<L, UnaryFn::Erf>(exact, x, y, n);
    case UnaryFn::Sigmoid:
      return unary_flavour<L, UnaryFn::Sigmoid>(exact, x, y, n);
    case UnaryFn::GeluErf:
      return unary_flavour<L, UnaryFn::GeluErf>(exact, x, y, n);
    case UnaryFn::GeluTanh:
      return unary_flavour<L, UnaryFn::GeluTanh>(exact, x, y, n);
  }
}

// Softmax over `rows` contiguous rows of n elements each; x and y may be the same buffer.
template <class L>
void softmax_rows_kernel(bool exact, const float* x, float* y, size_t rows, size_t n) {
  for (size_t r = 0; r < rows; ++r) {
    if (exact)
      math_detail::softmax_row<L, false>(x + r * n, y + r * n, n);
    else
      math_detail::softmax_row<L, true>(x + r * n, y + r * n, n);
  }
}

}  // namespace onemodel::inline ONEMODEL_KERNEL_NAMESPACE
